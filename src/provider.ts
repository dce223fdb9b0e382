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
import type { LdapEmployees } from "./users/ldap/ldap-employees.ts";
import { openLdapEmployees } from "./users/ldap/open-ldap-employees.ts";
import { buildPolicyParts, type PolicyParts } from "./snapshot/build-policy-parts.ts";
import { RefreshTokens } from "./oauth/refresh-tokens.ts";
import { DpopProofs } from "./oauth/dpop/dpop-proofs.ts";
import { DpopNonces } from "./oauth/dpop/dpop-nonces.ts";
import { ProofReplay } from "./oauth/dpop/proof-replay.ts";
import { UserLedger } from "./user-ledger/user-ledger.ts";
import { AuthorizationCodes } from "./oauth/authorization-codes.ts";
import { AssertionReplay } from "./oauth/assertion-replay.ts";
import { RemoteJwks } from "./oauth/remote-jwks.ts";
import { PushedRequests } from "./oauth/pushed-requests.ts";
import { IdTokenIssuer } from "./tokens/id-token.ts";
import { AttemptLimiter } from "./security/attempt-limiter.ts";
import { ConcurrencyGate } from "./security/concurrency-gate.ts";
import { SecretBox } from "./crypto/secret-box.ts";
import { encryptionKeyMaterial } from "./crypto/encryption-key.ts";
import { SsoSessions } from "./sessions/sso-sessions.ts";
import { BackChannelLogout } from "./sessions/back-channel-logout.ts";
import { LogoutTokenIssuer } from "./tokens/logout-token.ts";
import { cookieJar } from "./http-kit/cookies.ts";
import { Interactions } from "./runtime/interactions.ts";
import { loadMethodPlugins } from "./runtime/method-plugins.ts";
import { loadMethods, type LoadedMethod } from "./runtime/loaded-methods.ts";
import { FlowCatalog } from "./runtime/login-flows.ts";
import { Enrollments } from "./enrollments/enrollments.ts";
import { EidAccounts } from "./eid/eid-accounts.ts";
import { EidBroker } from "./eid/eid-broker.ts";
import { DevelopmentUpstreams, type LaunchProvider } from "./eid/development-upstreams.ts";
import { createChannelDirectory } from "./channels/create-channel-directory.ts";
import type { StartedExtension } from "./plugin-contract/extension.ts";
import { INSTALLED_EXTENSIONS } from "./extensions/installed-extensions.ts";
import { ListenedAuditTrail, type AuditTrail } from "./audit/audit-trail.ts";
import type { ProviderMetrics } from "./metrics/provider-metrics.ts";
import type { Infra, PolicyHolder } from "./infra/infra.ts";
import { flowServices, pluginServices } from "./infra/live-services.ts";
import { recordLockout } from "./audit/record-lockout.ts";
import { policyHash } from "./snapshot/policy-hash.ts";
import { RetainedFlows } from "./runtime/retained-flows.ts";
import { requestScope } from "./infra/scope.ts";
import type { IncomingMessage } from "node:http";

/** The composition root's product: the infrastructure (src/infra/infra.ts), with the policy snapshot in its holder. */
export type { Infra };

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

/**
 * Builds the infrastructure from a loaded configuration, in one phase: the store, the keys, the services
 * over them, the factor methods bound to those services, the first policy snapshot, the extensions.
 * The HTTP layer and the CLI receive the result and never read config files or build services themselves.
 */
export async function createProvider(config: LoadedConfig, options: ProviderOptions): Promise<Infra> {
  const { provider: settings } = config;
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const audit: AuditTrail = options.audit ?? new ListenedAuditTrail();
  // Before the store is opened: a plugin folder that does not load leaves nothing to clean up.
  const configuredMethods = await loadMethodPlugins(config.login, config.dir);
  const store =
    options.store ??
    (await createStore(settings.store.url, { dataDir: settings.data_dir, logger, observe: options.metrics?.observeStore }));
  // The store knows the core's record kinds; the plug-ins' come from their manifests, here.
  for (const { plugin } of configuredMethods.values()) store.declare(plugin.manifest.recordKinds);
  for (const extension of INSTALLED_EXTENSIONS) store.declare(extension.manifest.recordKinds);
  const upstreams = Object.values(config.login.eid_upstreams ?? {});
  const eidAccounts = new EidAccounts(
    store,
    clock,
    upstreams.map((upstream) => upstream.sub_prefix),
  );
  const methodClasses = new Map([...configuredMethods].map(([id, m]) => [id, m.plugin.class]));

  let ldapEmployees: LdapEmployees | undefined;
  let parts: PolicyParts;
  let secretBox: SecretBox;
  let keys: KeyManager;
  try {
    ldapEmployees = openLdapEmployees(config, clock, logger);
    parts = buildPolicyParts(config, await policyHash(config), methodClasses, eidAccounts, ldapEmployees);
    secretBox = new SecretBox(encryptionKeyMaterial(settings.secrets.encryption_key, settings.data_dir));
    keys = await openKeys(config, parts.clients, { store, box: secretBox, clock, logger, audit });
  } catch (error) {
    // A provider that cannot start must hold nothing open: a Redis client would keep reconnecting (and the
    // process running) forever, and the embedded store would keep its data-directory lock.
    if (!options.store) await store.close();
    await ldapEmployees?.close();
    throw error;
  }
  const signer = new JwsSigner(() => keys.keys);
  const denylist = new AccessTokenDenylist(store, clock);
  const referenceTokens = new ReferenceTokens(store, clock);
  const userLedger = new UserLedger(store, clock);
  const retainedFlows = new RetainedFlows(clock, parseDuration(settings.lifetimes.interaction) * 1000);
  // The first snapshot is served once the methods are bound and its flows built (below), before any request.
  let policy: PolicySnapshot | undefined;
  const policies: PolicyHolder = {
    current() {
      if (policy === undefined) throw new Error("the policy was read before the provider was built");
      return policy;
    },
    swap(next) {
      retainedFlows.retain(policies.current().flows);
      keys.retainAtLeast(rotationPolicy(next.config, next.clients).retainFor);
      policy = next;
    },
  };
  const attempts = settings.security.password_attempts;
  const backChannelLogout = new BackChannelLogout({
    clients: { get: (id) => policies.current().clients.get(id) },
    tokens: new LogoutTokenIssuer(signer, settings.issuer, clock),
    logger,
    audit,
  });
  const accessTokens = new AccessTokenIssuer(signer, settings.issuer, clock, referenceTokens);
  const methods = new Map<string, LoadedMethod>();
  const extensions: StartedExtension[] = [];
  const developmentUpstreams = new DevelopmentUpstreams(config.dir, options.launchProvider, logger);
  const stopCountingAudit = options.metrics?.countAudit(audit);

  const infra: Infra = {
    settings,
    configDir: config.dir,
    issuer: settings.issuer,
    clock,
    logger,
    audit,
    metrics: options.metrics,
    store,
    keys,
    signer,
    secretBox,
    policies,
    retainedFlows,
    methods,
    accessTokens,
    accessTokenVerifier: new AccessTokenVerifier(() => keys.keys, settings.issuer, clock, denylist, referenceTokens),
    accessTokenDenylist: denylist,
    referenceTokens,
    refreshTokens: new RefreshTokens(store, clock, denylist, userLedger, audit),
    dpop: new DpopProofs({
      replay: new ProofReplay(store),
      nonces: new DpopNonces(secretBox.derivedKey("dpop-nonce"), clock),
      requireNonce: settings.dpop.require_nonce,
      clock,
    }),
    userLedger,
    endedSessions: new EndedSessions(store, () => policies.current().clients.all()),
    codes: new AuthorizationCodes(store, clock),
    clientAuthentication: { replay: new AssertionReplay(store, clock), remoteJwks: new RemoteJwks(clock, logger) },
    pushedRequests: new PushedRequests(store, clock),
    idTokens: new IdTokenIssuer(signer, settings.issuer, clock),
    // The password grant's limit; it shares the password method's counter (and records a lockout like it).
    passwordAttempts: new AttemptLimiter(
      store.namespace("rateLimits"),
      "method:password",
      attempts.max_failures,
      parseDuration(attempts.window) * 1000,
      (subject) => recordLockout({ audit, users: policies.current().users }, "password")(subject),
    ),
    ldapEmployees,
    passwordChecks: new ConcurrencyGate(settings.security.max_concurrent_password_checks),
    loginRequests: new AttemptLimiter(
      store.namespace("rateLimits"),
      "login-ip",
      settings.security.login_requests_per_ip.max,
      parseDuration(settings.security.login_requests_per_ip.window) * 1000,
    ),
    sessions: new SsoSessions(
      store,
      clock,
      { idle: parseDuration(settings.lifetimes.sso_session_idle), absolute: parseDuration(settings.lifetimes.sso_session_absolute) },
      userLedger,
    ),
    backChannelLogout,
    cookies: cookieJar(settings.issuer),
    interactions: new Interactions(store, clock, parseDuration(settings.lifetimes.interaction)),
    enrollments: new Enrollments(store, clock, undefined, audit),
    eid: new EidBroker(config.login, eidAccounts, developmentUpstreams.options(config.login, settings.issuer)),
    // The channel directory's service token is minted outside any request, for the scopes serving then.
    channels: createChannelDirectory(config, accessTokens, () => policies.current().scopes, clock, logger),
    extensions,
    async close() {
      stopCountingAudit?.();
      keys.close();
      await developmentUpstreams.close();
      await backChannelLogout.close();
      await ldapEmployees?.close();
      if (!options.store) await store.close();
      await audit.close?.();
    },
  };
  try {
    for (const [id, method] of loadMethods(pluginServices(infra), configuredMethods)) methods.set(id, method);
    policy = { ...parts, flows: new FlowCatalog(flowServices(infra), config.login, methods) };
    extensions.push(...(await startExtensions(infra)));
  } catch (error) {
    // A plugin refusing its settings (a ConfigError) must not leave the store and key timers open.
    await infra.close();
    throw error;
  }
  return infra;
}

/** Each installed extension, its code imported now and started with what it may use of the infrastructure. */
async function startExtensions(infra: Infra): Promise<StartedExtension[]> {
  const context = {
    issuer: infra.issuer,
    clock: infra.clock,
    store: infra.store,
    policy: (req: IncomingMessage) => requestScope(infra, req).policy,
    accessTokens: infra.accessTokenVerifier,
  };
  return Promise.all(
    INSTALLED_EXTENSIONS.map(async ({ manifest, load }) => ({
      ...(await load()).start({ ...context, logger: infra.logger.child({ extension: manifest.id }) }),
      manifest,
    })),
  );
}

/** The signing keys: static ones from provider.yaml, or the generated ring in the store. */
function openKeys(
  config: LoadedConfig,
  clients: ClientRegistry,
  { store, box, clock, logger, audit }: { store: Store; box: SecretBox; clock: Clock; logger: Logger; audit: AuditTrail },
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
