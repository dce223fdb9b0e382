import type { RecordKinds } from "./record-kinds.ts";

/**
 * The one storage interface every layer uses. A `Store` is a set of namespaces, one per record kind;
 * each namespace is a `RecordStore` of JSON-serialisable values with optional TTLs.
 *
 * Three backends implement it (embedded, Redis, PostgreSQL), all on Keyv for get/set/delete and on the
 * raw client for the operations Keyv cannot do atomically (`take`, `add`, `increment`).
 * Every backend failure surfaces as `StoreUnavailableError`, which the HTTP layer answers with
 * 503 `temporarily_unavailable`.
 */

/**
 * The core's record kinds (record-kinds.ts says what the traits mean; the SSO code flow's kinds are
 * immutable). A plug-in's kinds are in its manifest; the composition root declares them (Store.declare).
 */
export const CORE_RECORD_KINDS = {
  interactions: { durable: false },
  codes: { durable: false, immutable: true },
  /** RFC 9126 pushed authorization requests: the parameters a client pushed, under the hash of their request_uri, until authorize takes them. */
  pushedRequests: { durable: false, immutable: true },
  sessions: { durable: false, immutable: true },
  refreshTokens: { durable: true },
  grants: { durable: true },
  enrollments: { durable: true },
  /** eID accounts: each one's claims as its upstream last said them, for userinfo (written at every eID login). */
  eidAccounts: { durable: true },
  rateLimits: { durable: false },
  qrSessions: { durable: false },
  /** Trusted app: login QR challenges, enrollment pages, device JWS ids. */
  appChallenges: { durable: false },
  /** Trusted app: one-time device enrollment tokens (an operator may hand one out while the provider is stopped). */
  appEnrollTokens: { durable: true },
  keys: { durable: true },
  revokedTokens: { durable: true },
  /** Reference access tokens: their claims under the handle's SHA-256 (durable, as a JWT outlives a restart too). */
  referenceTokens: { durable: true },
  claims: { durable: false },
  logoutRequests: { durable: false },
  /** The jti of each accepted private_key_jwt client assertion, until it expires: single use across nodes (src/oauth/assertion-replay.ts). */
  clientAssertions: { durable: false },
  /** DPoP proof jtis seen within the proof window (src/oauth/dpop/): a proof is accepted once on any node. */
  dpopProofs: { durable: false },
  /** Short-lived mutual-exclusion markers (read-modify-write of one record across processes). */
  locks: { durable: false },
  /** Each user's sessions, refresh-token families and access tokens, by slot (src/user-ledger/): what a sign-out of the user ends. */
  userLedger: { durable: true },
} as const satisfies RecordKinds;

/** A record kind: one of the core's, or one a plug-in declared (a string the store checks when it is used). */
export type RecordKind = keyof typeof CORE_RECORD_KINDS | (string & {});

export interface RecordStore<T> {
  /** The value, or undefined when absent or expired. */
  get(key: string): Promise<T | undefined>;
  /** Store a value; `ttlMs` omitted means no expiry. */
  set(key: string, value: T, ttlMs?: number): Promise<void>;
  /** Remove a value; true when something was removed. Not a single-use primitive: use `take`. */
  delete(key: string): Promise<boolean>;
  /** Atomically read and remove. Among any number of concurrent callers, in any number of processes, at most one gets the value. */
  take(key: string): Promise<T | undefined>;
  /** Atomically create the key only if it is absent (or expired). True for the one caller that created it. */
  add(key: string, value: T, ttlMs: number): Promise<boolean>;
  /** Atomically add 1 to a counter, creating it at 1 with `ttlMs` when absent or expired; returns the new count. The TTL is not extended by later increments. */
  increment(key: string, ttlMs: number): Promise<number>;
}

export interface Store {
  readonly backend: "embedded" | "redis" | "postgres";
  /** The records of one kind; an undeclared kind throws. */
  namespace<T>(kind: RecordKind): RecordStore<T>;
  /** Adds the record kinds of the installed plug-ins (the composition root, before any is used); a kind declared again keeps its traits. */
  declare(kinds: RecordKinds): void;
  /** Resolves when the backend answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /** Flush and release connections. */
  close(): Promise<void>;
}
