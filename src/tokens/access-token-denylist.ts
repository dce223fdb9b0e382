import type { Clock } from "../clock.ts";
import type { Store, RecordStore } from "../stores/store.ts";

/**
 * Revoked access tokens, by jti, kept until the token would have expired anyway (after that the
 * signature check refuses it by itself, so the entry can go).
 */
export class AccessTokenDenylist {
  private readonly entries: RecordStore<true>;

  constructor(store: Store, private readonly clock: Clock) {
    this.entries = store.namespace("revokedTokens");
  }

  /** Revokes the token with this jti and expiry (epoch seconds); nothing to do once it has expired. */
  async revoke(jti: string, exp: number): Promise<void> {
    const ttl = exp * 1000 - this.clock();
    if (ttl > 0) await this.entries.set(`jti:${jti}`, true, ttl);
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.entries.get(`jti:${jti}`)) === true;
  }
}
