import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { Clock } from "../time/clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import { bucketFor, liveBuckets, type LedgerBucket } from "./ledger-buckets.ts";

/** An SSO session: ended by its record's store key (the hash of its cookie; never the cookie itself). */
export interface SessionEntry {
  kind: "session";
  key: string;
  sid: string;
  /** Epoch ms: the session's absolute end. */
  until: number;
}

/** A refresh-token family: revoked by its id, which also revokes every access token it issued. */
export interface RefreshFamilyEntry {
  kind: "refresh_family";
  familyId: string;
  clientId: string;
  /** Epoch ms. */
  issuedAt: number;
  /** Epoch ms: the family's absolute expiry. */
  until: number;
  /** The SSO session it was issued from, if any. */
  sid?: string;
}

/** An access token issued outside any refresh family (a family's are ended with it): denied by its jti. */
export interface AccessTokenEntry {
  kind: "access_token";
  jti: string;
  clientId: string;
  /** Epoch ms. */
  issuedAt: number;
  /** Epoch ms: the token's exp. */
  until: number;
  /** A reference token's record key (the hash of its handle; never the handle). */
  referenceKey?: string;
}

/** One thing a user holds, as the ledger keeps it: what ending it takes, and `until`, when it ends by itself. */
export type LedgerEntry = SessionEntry | RefreshFamilyEntry | AccessTokenEntry;

/**
 * What each user holds — SSO sessions, refresh-token families, access tokens outside a family — so that
 * an operator can list it and end it all (src/sessions/sign-out-user.ts). The store cannot list keys, so
 * the ledger files each entry in a numbered slot: an atomic counter per user and bucket (ledger-buckets.ts
 * says which bucket) hands out the slot, and the entry is written there with the lifetime of what it
 * names. Recording costs one increment and one write, on every node alike; listing reads the counters of
 * the buckets that can still hold live entries, then their slots.
 *
 * Keys in the userLedger namespace: `n:<holder>:<level>:<index>` a bucket's counter, `e:<holder>:<level>:
 * <index>:<slot>` an entry; `<holder>` is the SHA-256 of the sub (fixed length and free of ':', which a
 * vendor account's sub has).
 */
export class UserLedger {
  private readonly clock: Clock;
  private readonly counters: RecordStore<number>;
  private readonly entries: RecordStore<LedgerEntry>;

  constructor(store: Store, clock: Clock) {
    this.clock = clock;
    this.counters = store.namespace("userLedger");
    this.entries = store.namespace("userLedger");
  }

  /** Files `entry` for the user `sub` until `entry.until`; nothing for an entry that has already ended. */
  async record(sub: string, entry: LedgerEntry): Promise<void> {
    const now = this.clock();
    if (entry.until <= now) return;
    const bucket = bucketFor(now, entry.until);
    const name = bucketName(sub, bucket);
    const slot = await this.counters.increment(`n:${name}`, bucket.endsAt - now);
    await this.entries.set(`e:${name}:${slot}`, entry, entry.until - now);
  }

  /** Every entry of `sub` that has not ended by itself (what it names may have been ended otherwise: callers check). */
  async list(sub: string): Promise<LedgerEntry[]> {
    const now = this.clock();
    const buckets = liveBuckets(now).map((bucket) => bucketName(sub, bucket));
    const counts = await Promise.all(buckets.map((name) => this.counters.get(`n:${name}`)));
    const slots = buckets.flatMap((name, i) => Array.from({ length: counts[i] ?? 0 }, (_, n) => `e:${name}:${n + 1}`));
    const entries = await Promise.all(slots.map((slot) => this.entries.get(slot)));
    return entries.filter((entry): entry is LedgerEntry => entry !== undefined && entry.until > now);
  }
}

const bucketName = (sub: string, bucket: LedgerBucket) => `${storeKeyHash(sub)}:${bucket.level}:${bucket.index}`;
