import type { Logger } from "pino";
import type { ProviderFile } from "../config/types.generated.ts";
import type { Clock } from "../time/clock.ts";
import type { Store } from "../stores/store.ts";
import type { KeyManager } from "../tokens/key-manager.ts";
import type { JwsSigner } from "../tokens/jws-signer.ts";
import type { AccessTokenIssuer } from "../tokens/access-token.ts";
import type { AccessTokenVerifier } from "../tokens/access-token-verifier.ts";
import type { AccessTokenDenylist } from "../tokens/access-token-denylist.ts";
import type { ReferenceTokens } from "../tokens/reference-tokens.ts";
import type { IdTokenIssuer } from "../tokens/id-token.ts";
import type { EndedSessions } from "../sessions/ended-sessions.ts";
import type { SsoSessions } from "../sessions/sso-sessions.ts";
import type { BackChannelLogout } from "../sessions/back-channel-logout.ts";
import type { RefreshTokens } from "../oauth/refresh-tokens.ts";
import type { UserLedger } from "../user-ledger/user-ledger.ts";
import type { AuthorizationCodes } from "../oauth/authorization-codes.ts";
import type { ClientAuthenticationServices } from "../oauth/client-authentication-services.ts";
import type { PushedRequests } from "../oauth/pushed-requests.ts";
import type { AttemptLimiter } from "../security/attempt-limiter.ts";
import type { ConcurrencyGate } from "../security/concurrency-gate.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { CookieJar } from "../http-kit/cookies.ts";
import type { Interactions } from "../runtime/interactions.ts";
import type { LoadedMethod } from "../runtime/loaded-methods.ts";
import type { RetainedFlows } from "../runtime/retained-flows.ts";
import type { Enrollments } from "../enrollments/enrollments.ts";
import type { EidBroker } from "../eid/eid-broker.ts";
import type { LdapEmployees } from "../users/ldap/ldap-employees.ts";
import type { ChannelDirectory } from "../channels/channel-directory.ts";
import type { StartedExtension } from "../plugin-contract/extension.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { ProviderMetrics } from "../metrics/provider-metrics.ts";
import type { PolicySnapshot } from "../snapshot/policy-snapshot.ts";
import type { DpopProofs } from "../oauth/dpop/dpop-proofs.ts";

/**
 * The infrastructure: everything the provider builds once at start and keeps until it stops — what a
 * change to needs a restart (provider.yaml's settings, the store, the keys, the factor methods), and the
 * services over them. Built in one phase by the composition root (src/provider.ts). What a reload
 * changes is not here but in the policy snapshot; a request or a command takes both at once, as one
 * Scope (./scope.ts), and reads the policy only from it.
 */
export interface Infra {
  /** provider.yaml as the provider started with it: a reload may not change it (src/reload/restart-only-changes.ts). */
  readonly settings: ProviderFile;
  /** The configuration directory the policy files are read from. */
  readonly configDir: string;
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
  /** Seals secrets kept in the store (signing keys, TOTP seeds). */
  readonly secretBox: SecretBox;
  /** The policy snapshot serving now, and the swap a reload makes: only an entry point reads it (./scope.ts). */
  readonly policies: PolicyHolder;
  /** The flow catalogs of earlier snapshots, kept for the interactions they started (src/reload/). */
  readonly retainedFlows: RetainedFlows;
  /**
   * The factor methods configured in login.yaml, bound to this provider: their set and settings need a
   * restart, and they are kept across reloads (docs/decisions.md, "Reload").
   */
  readonly methods: ReadonlyMap<string, LoadedMethod>;
  readonly accessTokens: AccessTokenIssuer;
  readonly accessTokenVerifier: AccessTokenVerifier;
  readonly accessTokenDenylist: AccessTokenDenylist;
  /** The records of reference access tokens (clients with `access_token_format: reference`). */
  readonly referenceTokens: ReferenceTokens;
  readonly refreshTokens: RefreshTokens;
  /** DPoP proof verification (RFC 9449): the token endpoint, userinfo and requireBearer share its replay store and nonces. */
  readonly dpop: DpopProofs;
  /** What each user holds (sessions, refresh families, access tokens outside a family), for an operator's list and sign-out. */
  readonly userLedger: UserLedger;
  readonly endedSessions: EndedSessions;
  readonly codes: AuthorizationCodes;
  /** Client assertions' jtis (single use across nodes) and the clients' jwks_uri sets (src/oauth/authenticate-client.ts). */
  readonly clientAuthentication: ClientAuthenticationServices;
  /** RFC 9126 pushed authorization requests, until authorize takes them. */
  readonly pushedRequests: PushedRequests;
  readonly idTokens: IdTokenIssuer;
  /** Failed password checks per account: the password method's limit, which the password grant shares. */
  readonly passwordAttempts: AttemptLimiter;
  /**
   * The LDAP directory's employees when directory.yaml chooses one (its connections and cache live as long
   * as the process; each policy snapshot's user directory asks it). Undefined: the employees of users.yaml.
   */
  readonly ldapEmployees: LdapEmployees | undefined;
  /** Bounds the password checks (scrypt verifications, LDAP binds) running and waiting in this process. */
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
  /** The installed extensions, started: their routes and their say in every authorization. */
  readonly extensions: readonly StartedExtension[];
  close(): Promise<void>;
}

/** Holds the snapshot serving now. */
export interface PolicyHolder {
  /** The snapshot serving now: an entry point reads it once (takeScope), nothing else does. */
  current(): PolicySnapshot;
  /** Serves `next` from now on (src/reload/ builds it); the flows of the old one are retained. */
  swap(next: PolicySnapshot): void;
}
