import { randomUUID } from "node:crypto";
import { epochSeconds, type Clock } from "../../time/clock.ts";
import type { IssuedAccessToken } from "../../oauth/refresh-tokens.ts";
import { familyJti } from "../../tokens/access-token-denylist.ts";

/**
 * The jti and exp of an access token not yet signed, so that a record naming it (a code's redemption, a
 * refresh family) can be written before the token exists and a revocation can never miss it. The exp is
 * an upper bound: the token reads the clock again when it is signed, possibly in the next second, and a
 * revocation that outlives the token by a second costs nothing. An access token issued with a refresh
 * token names its family in the jti, so that revoking the family revokes it (access-token-denylist.ts).
 */
export function plannedAccessToken(clock: Clock, lifetime: number, familyId?: string): IssuedAccessToken {
  const id = randomUUID();
  return { jti: familyId === undefined ? id : familyJti(familyId, id), exp: epochSeconds(clock) + lifetime + 1 };
}
