import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { Clock } from "../time/clock.ts";
import type { Store, RecordStore } from "../stores/store.ts";
import type { AuthorizationCodeGrant } from "./authorization-code.ts";
import { randomToken } from "../crypto/random-token.ts";

/** What one redemption of a code issued, named before it was issued, so a reuse can revoke it. */
export interface CodeRedemption {
  /** The access token's jti and exp (epoch seconds). */
  accessToken: { jti: string; exp: number };
  /** The refresh-token family, when one was issued; expiresAt in ms. */
  refreshFamily?: { familyId: string; expiresAt: number };
}

/**
 * A second presentation that found no redemption record writes this in its place: the redemption in
 * flight then learns, when it tries to write its record, that its code was reused.
 */
type RedeemedMarker = CodeRedemption | { reused: true };

/** A code's record: its grant and when it expires (ms; absent in records written before codes carried it). */
type StoredCode = AuthorizationCodeGrant & { expiresAt?: number };

// How long a "reused" marker waits for a redemption in flight. A redemption writes its record right
// after taking the code, so milliseconds would do; this is the code lifetime, to be generous.
const IN_FLIGHT_MS = 300_000;

/**
 * Authorization codes (SPEC "Authorization code"): 32 random bytes, stored under their SHA-256 so a
 * store dump yields no usable code. Redemption is the store's atomic `take`; a "redeemed" marker under the
 * same hash names what the redemption issued, so that a second presentation can revoke it (RFC 6749
 * §4.1.2, RFC 9700 §4.2.4).
 *
 * The marker race is closed both ways with `add`: the redemption adds its marker, a second presentation
 * that finds none adds a "reused" one. Whichever comes second learns of the other: either the second
 * presentation reads the marker and revokes, or the redemption finds "reused" and revokes what it issues.
 */
export class AuthorizationCodes {
  private readonly clock: Clock;
  private readonly records: RecordStore<StoredCode | RedeemedMarker>;

  constructor(store: Store, clock: Clock) {
    this.clock = clock;
    this.records = store.namespace("codes");
  }

  /** A new code for `grant`, valid for `ttlSeconds` (client.lifetimes.authorizationCode). */
  async issue(grant: AuthorizationCodeGrant, ttlSeconds: number): Promise<string> {
    const code = randomToken(32);
    await this.records.set(codeKey(code), { ...grant, expiresAt: this.clock() + ttlSeconds * 1000 }, ttlSeconds * 1000);
    return code;
  }

  /**
   * The grant of a code still within its lifetime. The store's TTL ends the record on the store's time;
   * this holds to the provider's clock as well, so a FAPI 2.0 client's 60 s is 60 s on every node.
   */
  private live(stored: StoredCode | undefined): AuthorizationCodeGrant | undefined {
    if (stored === undefined) return undefined;
    const { expiresAt, ...grant } = stored;
    return expiresAt !== undefined && expiresAt <= this.clock() ? undefined : grant;
  }

  /** The code's grant, left in place: what the redemption checks before it takes the code. */
  async peek(code: PresentedCode): Promise<AuthorizationCodeGrant | undefined> {
    return this.live((await this.records.get(code.hash)) as StoredCode | undefined);
  }

  /** The code's grant, removed for good: exactly one of any number of concurrent callers gets it. */
  async take(code: PresentedCode): Promise<AuthorizationCodeGrant | undefined> {
    return this.live((await this.records.take(code.hash)) as StoredCode | undefined);
  }

  /**
   * Records what the redemption of a taken code is about to issue. False when the code was presented
   * again meanwhile: the caller must then revoke what it issues.
   */
  async recordRedemption(code: PresentedCode, redemption: CodeRedemption): Promise<boolean> {
    const ttl = Math.max(redemption.accessToken.exp * 1000, redemption.refreshFamily?.expiresAt ?? 0) - this.clock();
    return this.records.add(redeemedKey(code), redemption, Math.max(1, ttl));
  }

  /**
   * A presentation of a code that is gone: what its redemption issued, to be revoked, or undefined when
   * nothing was (never issued, expired, or a redemption still in flight — which then finds out by itself).
   */
  async reuse(code: PresentedCode): Promise<CodeRedemption | undefined> {
    if (await this.records.add(redeemedKey(code), { reused: true }, IN_FLIGHT_MS)) return undefined;
    const marker = (await this.records.get(redeemedKey(code))) as RedeemedMarker | undefined;
    return marker === undefined || "reused" in marker ? undefined : marker;
  }
}

// Codes and markers share the namespace; a base64url hash contains no ':', so the prefix keeps them apart.
const codeKey = (code: string) => storeKeyHash(code);
const redeemedKey = (code: PresentedCode) => `redeemed:${code.hash}`;

/** A code as presented at the token endpoint, hashed once for all the look-ups of its redemption. */
export interface PresentedCode {
  readonly hash: string;
}

export const presentedCode = (code: string): PresentedCode => ({ hash: codeKey(code) });
