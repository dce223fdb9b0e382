import type { Clock } from "../time/clock.ts";
import { randomToken } from "../crypto/random-token.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import type { AccessTokenClaims, ReferenceTokenIssuer } from "./access-token.ts";

/** 32 random bytes as base64url: 256 bits, the same strength as a refresh token. */
const HANDLE_BYTES = 32;

/**
 * The shape of a handle: exactly 43 base64url characters. A JWT always has two dots, so the shape alone
 * tells the formats apart; a string of neither shape goes the JWT way and is refused as malformed there.
 */
const HANDLE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The store key of a handle's record: its SHA-256 (the store never holds the handle). */
export function referenceTokenKey(handle: string): string {
  return storeKeyHash(handle);
}

/** Whether a presented token has the shape of a reference handle (it may still be unknown). */
export function looksLikeReferenceToken(token: string): boolean {
  return HANDLE_SHAPE.test(token);
}

/**
 * Reference (opaque) access tokens: a random handle for the client, and under the handle's SHA-256 the
 * claims a JWT would have carried, until the token expires. The store never holds the handle itself,
 * so a dump of it yields no usable token (as for refresh tokens and codes); and since the record is the
 * token, deleting it revokes the token on every node at once.
 */
export class ReferenceTokens implements ReferenceTokenIssuer {
  private readonly clock: Clock;
  private readonly records: RecordStore<AccessTokenClaims>;

  constructor(store: Store, clock: Clock) {
    this.clock = clock;
    this.records = store.namespace("referenceTokens");
  }

  /** Stores the claims for their lifetime (to `exp`) and returns the handle that names them. */
  async issue(claims: AccessTokenClaims): Promise<string> {
    const handle = randomToken(HANDLE_BYTES);
    await this.records.set(referenceTokenKey(handle), claims, Math.max(1, claims.exp * 1000 - this.clock()));
    return handle;
  }

  /** The claims of a handle, or undefined when it is unknown, revoked or its record has expired. */
  find(handle: string): Promise<AccessTokenClaims | undefined> {
    return this.records.get(referenceTokenKey(handle));
  }

  /** Ends the token: its record is deleted, so no node finds it any more. */
  async revoke(handle: string): Promise<void> {
    await this.revokeByKey(referenceTokenKey(handle));
  }

  /** Whether the record under `key` (its user's ledger names it so) is still there: the token is live unless its jti is revoked. */
  async exists(key: string): Promise<boolean> {
    return (await this.records.get(key)) !== undefined;
  }

  /** Ends the token whose record is under `key` (its user's ledger names it so); true when it was still live. */
  revokeByKey(key: string): Promise<boolean> {
    return this.records.delete(key);
  }
}
