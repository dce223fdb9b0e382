import type { Clock } from "../time/clock.ts";
import type { Store, RecordStore } from "../stores/store.ts";

/**
 * Revoked access tokens: one by jti, or all of a refresh-token family at once. Entries are kept until the
 * tokens they name would have expired anyway (after that the signature check refuses them by itself).
 *
 * An access token issued with a refresh token carries its family in its jti (`<familyId>.<uuid>`,
 * `familyJti`), so revoking a family is one record however many access tokens it issued — a family that
 * listed them grew with every refresh (docs/performance.md, "Refresh").
 */
export class AccessTokenDenylist {
  private readonly clock: Clock;
  private readonly entries: RecordStore<true>;

  constructor(store: Store, clock: Clock) {
    this.clock = clock;
    this.entries = store.namespace("revokedTokens");
  }

  /** Revokes the token with this jti and expiry (epoch seconds); nothing to do once it has expired. */
  async revoke(jti: string, exp: number): Promise<void> {
    const ttl = exp * 1000 - this.clock();
    if (ttl > 0) await this.entries.set(`jti:${jti}`, true, ttl);
  }

  /** Revokes every access token of the family (and the family itself) until `untilMs`, when its last one expires. */
  async revokeFamily(familyId: string, untilMs: number): Promise<void> {
    await this.entries.set(familyKey(familyId), true, Math.max(1, untilMs - this.clock()));
  }

  async isFamilyRevoked(familyId: string): Promise<boolean> {
    return (await this.entries.get(familyKey(familyId))) === true;
  }

  async isRevoked(jti: string): Promise<boolean> {
    if ((await this.entries.get(`jti:${jti}`)) === true) return true;
    const family = familyOfJti(jti);
    return family !== undefined && (await this.isFamilyRevoked(family));
  }
}

/** The jti of an access token issued with a refresh-token family: revoked with the family. */
export function familyJti(familyId: string, id: string): string {
  return `${familyId}.${id}`;
}

/** Whether an access token's jti names a refresh-token family: the token is revoked with its family. */
export function isFamilyJti(jti: string): boolean {
  return familyOfJti(jti) !== undefined;
}

/**
 * The family a jti names, if it is a family's (family ids are base64url: no "."). Callers that have not
 * checked the claim's type pass what the token held: anything but a string names no family.
 */
function familyOfJti(jti: unknown): string | undefined {
  if (typeof jti !== "string") return undefined;
  const dot = jti.indexOf(".");
  return dot > 0 ? jti.slice(0, dot) : undefined;
}

// The key refresh-token families have always been revoked under (records written before access tokens
// named their family stay valid).
const familyKey = (familyId: string) => `family:${familyId}`;
