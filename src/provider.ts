import type { Logger } from "pino";
import type { LoadedConfig } from "./config/load-config.ts";
import { parseDuration } from "./time/duration.ts";
import { systemClock, type Clock } from "./time/clock.ts";
import type { Store } from "./stores/store.ts";
import { createStore } from "./stores/create-store.ts";
import { KeyManager } from "./tokens/key-manager.ts";
import { rotationPolicy } from "./tokens/rotation-policy.ts";
import { JwsSigner } from "./tokens/jws-signer.ts";
import { AccessTokenIssuer } from "./tokens/access-token.ts";
import { AccessTokenVerifier } from "./tokens/access-token-verifier.ts";
import { AccessTokenDenylist } from "./tokens/access-token-denylist.ts";
import { ReferenceTokens } from "./tokens/reference-tokens.ts";
import { EndedSessions } from "./sessions/ended-sessions.ts";
import type { ClientRegistry } from "./oauth/client-registry.ts";
import type { PolicySnapshot } from "./snapshot/policy-snapshot.ts";
import { buildPolicyParts, type PolicyParts } from "./snapshot/build-policy-parts.ts";
import { RefreshTokens } from "./oauth/refresh-tokens.ts";
import { AuthorizationCodes } from "./oauth/authorization-codes.ts";
import { IdTokenIssuer } from "./tokens/id-token.ts";
import type { UserDirectory } from "./users/user-directory.ts";
import type { VendorAccounts } from "./users/vendor-accounts.ts";
import { AttemptLimiter } from "./security/attempt-limiter.ts";
import { ConcurrencyGate } from "./security/concurrency-gate.ts";
import { SecretBox } from "./crypto/secret-box.ts";
import { encryptionKeyMaterial } from "./crypto/encryption-key.ts";
import { SsoSessions } from "./sessions/sso-sessions.ts";
import { BackChannelLogout } from "./sessions/back-channel-logout.ts";
import { LogoutTokenIssuer } from "./tokens/logout-token.ts";
import { cookieJar, type CookieJar } from "./http-kit/cookies.ts";
import { Interactions } from "./runtime/interactions.ts";
import { loadMethodPlugins } from "./runtime/method-plugins.ts";
import { loadMethods, type LoadedMethod } from "./runtime/loaded-methods.ts";
import { FlowCatalog } from "./runtime/login-flows.ts";
import { Enrollments } from "./enrollments/enrollments.ts";
import { EidAccounts } from "./eid/eid-accounts.ts";
import { EidBroker } from "./eid/eid-broker.ts";
import { DevelopmentUpstreams, type LaunchProvider } from "./eid/development-upstreams.ts";
import type { ChannelDirectory } from "./channels/channel-directory.ts";
import { createChannelDirectory } from "./channels/create-channel-directory.ts";
import type { StartedExtension } from "./extensions/contract/extension.ts";
import { INSTALLED_EXTENSIONS } from "./extensions/installed-extensions.ts";
import { ListenedAuditTrail, type AuditTrail } from "./audit/audit-trail.ts";
import type { ProviderMetrics } from "./metrics/provider-metrics.ts";
import { recordLockout } from "./audit/record-lockout.ts";
import { policyHash } from "./snapshot/policy-hash.ts";
import { RetainedFlows } from "./runtime/retained-flows.ts";

/**
 * Everything a request needs, built once from a loaded configuration: the composition root.
 * The HTTP layer receives a Provider and never reads config files or builds services itself.
 */
export interface Provider {
  /** The current policy snapshot's configuration (provider.yaml's part never changes while running). */
  readonly config: LoadedConfig;
  readonly issuer: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Security-relevant acts, for auditors (src/audit/): never a secret, code or token. */
  readonly audit: AuditTrail;
  /** Prometheus metrics, when provider.yaml has a `metrics` section (src/metrics/). */
  readonly metrics: ProviderMetrics | undefined;
  readonly store: Store;
  readonly keys: KeyManager;
  readonly signer: JwsSigner;
  /** Seals secrets kept in the store (signing keys; later TOTP seeds). */
  readonly secretBox: SecretBox;
  /** The login policy and everything else built from the policy files: read it once per request. */
  readonly policy: PolicySnapshot;
  /** Swaps the policy snapshot (src/reload/ builds it): requests read afterwards see the new one. */
  swapPolicy(next: PolicySnapshot): void;
  /** The flow catalogs of earlier snapshots, kept for the interactions they started (src/reload/). */
  readonly retainedFlows: RetainedFlows;
  /** The current snapshot's directory. */
  readonly users: UserDirectory;
  /** The current snapshot's MyVendor accounts (`<client_id>:<account>`): not in the directory, alive while their client may make vendor logins. */
  readonly vendorAccounts: VendorAccounts;
  readonly accessTokens: AccessTokenIssuer;
  readonly accessTokenVerifier: AccessTokenVerifier;
  readonly accessTokenDenylist: AccessTokenDenylist;
  /** The records of reference access tokens (clients with `access_token_format: reference`). */
  readonly referenceTokens: ReferenceTokens;
  readonly refreshTokens: RefreshTokens;
  readonly endedSessions: EndedSessions;
  readonly codes: AuthorizationCodes;
  readonly idTokens: IdTokenIssuer;
  /** Failed password checks per account: the password method's limit, which the password grant shares. */
  readonly passwordAttempts: AttemptLimiter;
  /** Bounds the scrypt verifications running and waiting in this process. */
  readonly passwordChecks: ConcurrencyGate;
  /** Login requests (logins started, login forms posted) per client address. */
  readonly loginRequests: AttemptLimiter;
  readonly sessions: SsoSessions;
  /** Back-channel logout deliveries of ended sessions (in the background; stopped by close()). */
  readonly backChannelLogout: BackChannelLogout;
  readonly cookies: CookieJar;
  readonly interactions: Interactions;
  /** Every user's enrolled factor methods (durable). */
  readonly enrollments: Enrollments;
  /** The eID broker: a relying party per upstream of login.yaml's eid_upstreams, and the eID accounts. */
  readonly eid: EidBroker;
  /** Which channels a user has an account in and administers (req_chnl, chnl_info): channels.yaml `directory`. */
  readonly channels: ChannelDirectory;
  /** The installed extensions (src/extensions/), started: their routes and their say in every authorization. */
  readonly extensions: readonly StartedExtension[];
  close(): Promise<void>;
}

export interface ProviderOptions {
  logger: Logger;
  /** A store to use instead of the one provider.yaml names (tests share one). Not closed by the provider. */
  store?: Store;
  clock?: Clock;
  /** Where audit events go; an in-memory trail with no sink otherwise. */
  audit?: AuditTrail;
  /** Where the store, the HTTP layer and the audit trail report; none when absent. */
  metrics?: ProviderMetrics | undefined;
  /** Starts another provider in this process: how `development` eID upstreams (demo only) come up. */
  launchProvider?: LaunchProvider;
}

export async function createProvider(config: LoadedConfig, options: ProviderOptions): Promise<Provider> {
  const { provider: settings } = config;
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const audit: AuditTrail = options.audit ?? new ListenedAuditTrail();
  // Before the store is opened: a plugin folder that does not load leaves nothing to clean up.
  const configuredMethods = await loadMethodPlugins(config.login, config.dir);
  const store =
    options.store ??
    (await createStore(settings.store.url, { dataDir: settings.data_dir, logger, observe: options.metrics?.observeStore }));
  const upstreams = Object.values(config.login.eid_upstreams ?? {});
  const eidAccounts = new EidAccounts(
    store,
    clock,
    upstreams.map((upstream) => upstream.sub_prefix),
  );
  const methodClasses = new Map([...configuredMethods].map(([id, m]) => [id, m.plugin.class]));

  let parts: PolicyParts;
  let secretBox: SecretBox;
  let keys: KeyManager;
  try {
    parts = buildPolicyParts(config, await policyHash(config.dir), methodClasses, eidAccounts);
    secretBox = new SecretBox(encryptionKeyMaterial(settings.secrets.encryption_key, settings.data_dir));
    keys = await openKeys(config, parts.clients, store, secretBox, clock, logger, audit);
  } catch (error) {
    // A provider that cannot start must hold nothing open: a Redis client would keep reconnecting (and the
    // process running) forever, and the embedded store would keep its data-directory lock.
    if (!options.store) await store.close();
    throw error;
  }
  const signer = new JwsSigner(() => keys.keys);
  const denylist = new AccessTokenDenylist(store, clock);
  const referenceTokens = new ReferenceTokens(store, clock);
  const attempts = settings.security.password_attempts;
  const backChannelLogout = new BackChannelLogout({
    clients: { get: (id) => policy.clients.get(id) },
    tokens: new LogoutTokenIssuer(signer, settings.issuer, clock),
    logger,
    audit,
  });
  const accessTokens = new AccessTokenIssuer(signer, settings.issuer, () => policy.scopes, clock, referenceTokens);
  const methods = new Map<string, LoadedMethod>();
  // Complete once the methods are bound (below); until then no request is served.
  let policy: PolicySnapshot = { ...parts, methods, flows: undefined as unknown as FlowCatalog };
  const retainedFlows = new RetainedFlows(clock, parseDuration(settings.lifetimes.interaction) * 1000);
  const developmentUpstreams = new DevelopmentUpstreams(config.dir, options.launchProvider, logger);
  let extensions: readonly StartedExtension[] = [];
  const stopCountingAudit = options.metrics?.countAudit(audit);

  const provider: Provider = {
    get config() {
      return policy.config;
    },
    issuer: settings.issuer,
    clock,
    logger,
    audit,
    metrics: options.metrics,
    store,
    keys,
    signer,
    secretBox,
    // A getter: a reload (issue 14) swaps the snapshot; each request reads it once.
    get policy() {
      return policy;
    },
    swapPolicy(next) {
      retainedFlows.retain(policy.flows);
      keys.retainAtLeast(rotationPolicy(next.config, next.clients).retainFor);
      policy = next;
    },
    retainedFlows,
    get users() {
      return policy.users;
    },
    get vendorAccounts() {
      return policy.vendorAccounts;
    },
    accessTokens,
    accessTokenVerifier: new AccessTokenVerifier(() => keys.keys, settings.issuer, clock, denylist, referenceTokens),
    accessTokenDenylist: denylist,
    referenceTokens,
    refreshTokens: new RefreshTokens(store, clock, denylist, audit),
    endedSessions: new EndedSessions(store, () => policy.clients.all()),
    codes: new AuthorizationCodes(store, clock),
    idTokens: new IdTokenIssuer(signer, settings.issuer, clock),
    // The password grant's limit; it shares the password method's counter (and records a lockout like it).
    passwordAttempts: new AttemptLimiter(
      store.namespace("rateLimits"),
      "method:password",
      attempts.max_failures,
      parseDuration(attempts.window) * 1000,
      (subject) => recordLockout(provider, "password")(subject),
    ),
    passwordChecks: new ConcurrencyGate(settings.security.max_concurrent_password_checks),
    loginRequests: new AttemptLimiter(
      store.namespace("rateLimits"),
      "login-ip",
      settings.security.login_requests_per_ip.max,
      parseDuration(settings.security.login_requests_per_ip.window) * 1000,
    ),
    sessions: new SsoSessions(store, clock, {
      idle: parseDuration(settings.lifetimes.sso_session_idle),
      absolute: parseDuration(settings.lifetimes.sso_session_absolute),
    }),
    backChannelLogout,
    cookies: cookieJar(settings.issuer),
    interactions: new Interactions(store, clock, parseDuration(settings.lifetimes.interaction)),
    enrollments: new Enrollments(store, clock, undefined, audit),
    eid: new EidBroker(config.login, eidAccounts, developmentUpstreams.options(config.login, settings.issuer)),
    channels: createChannelDirectory(config, accessTokens, clock, logger),
    // Started once the provider exists (below): extensions get a context over it.
    get extensions() {
      return extensions;
    },
    async close() {
      stopCountingAudit?.();
      keys.close();
      await developmentUpstreams.close();
      await backChannelLogout.close();
      if (!options.store) await store.close();
      await audit.close?.();
    },
  };
  // The methods' actors are bound to this provider, so they and the flows are built once it exists.
  try {
    for (const [id, method] of loadMethods(provider, configuredMethods)) methods.set(id, method);
    policy = { ...policy, flows: new FlowCatalog(provider, config.login, methods) };
    extensions = startExtensions(provider);
  } catch (error) {
    // A plugin refusing its settings (a ConfigError) must not leave the store and key timers open.
    await provider.close();
    throw error;
  }
  return provider;
}

/** Each installed extension, started with what it may use of this provider. */
function startExtensions(provider: Provider): StartedExtension[] {
  const context = {
    issuer: provider.issuer,
    clock: provider.clock,
    logger: provider.logger,
    store: provider.store,
    policy: () => provider.policy,
    config: () => provider.config,
    accessTokens: provider.accessTokenVerifier,
  };
  return INSTALLED_EXTENSIONS.map((extension) => ({
    ...extension.start({ ...context, logger: provider.logger.child({ extension: extension.manifest.id }) }),
    manifest: extension.manifest,
  }));
}

/** The signing keys: static ones from provider.yaml, or the generated ring in the store. */
function openKeys(
  config: LoadedConfig,
  clients: ClientRegistry,
  store: Store,
  box: SecretBox,
  clock: Clock,
  logger: Logger,
  audit: AuditTrail,
): Promise<KeyManager> {
  const settings = config.provider;
  return KeyManager.open({
    store,
    box,
    clock,
    logger,
    modulusLength: settings.keys.modulus_length,
    staticKeys: settings.keys.static,
    policy: rotationPolicy(config, clients),
    onRotated: (kid, status) => audit.record({ type: "key.rotated", kid, status, by: "schedule" }),
  });
}
