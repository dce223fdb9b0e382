import { EXTENSION_RECORD_KINDS } from "../extensions/manifests/installed-manifests.ts";

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
 * Record kinds. Durable kinds survive a restart of the embedded store; the others may be lost with it.
 * `immutable`: a value stored is never changed in place afterwards, by its writer or by a reader (a
 * change is a new value, set again), so the embedded store may keep it by reference, frozen, instead
 * of as JSON (memory-record-store.ts). The SSO code flow's kinds are.
 */
export const RECORD_KINDS = {
  interactions: { durable: false },
  codes: { durable: false, immutable: true },
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
  /** TOTP and FIDO2: claimed time steps, enrollment secrets shown once, WebAuthn challenges (all single use). */
  methodChallenges: { durable: false },
  /** SMS and e-mail: one-time codes (HMACs only), one current code per user, method and login. */
  oneTimeCodes: { durable: false },
  keys: { durable: true },
  revokedTokens: { durable: true },
  /** Reference access tokens: their claims under the handle's SHA-256 (durable, as a JWT outlives a restart too). */
  referenceTokens: { durable: true },
  claims: { durable: false },
  logoutRequests: { durable: false },
  /** Short-lived mutual-exclusion markers (read-modify-write of one record across processes). */
  locks: { durable: false },
  // The extensions' own kinds (src/extensions/manifests/).
  ...EXTENSION_RECORD_KINDS,
} as const;

export type RecordKind = keyof typeof RECORD_KINDS;

/** Whether `kind`'s values are never changed in place once stored (RECORD_KINDS). */
export function isImmutableKind(kind: RecordKind): boolean {
  const traits = RECORD_KINDS[kind];
  return "immutable" in traits && traits.immutable;
}

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
  namespace<T>(kind: RecordKind): RecordStore<T>;
  /** Resolves when the backend answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /** Flush and release connections. */
  close(): Promise<void>;
}
