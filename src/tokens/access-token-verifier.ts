import { errors } from "jose";
import type { Clock } from "../clock.ts";
import { epochSeconds } from "../clock.ts";
import type { AccessTokenDenylist } from "./access-token-denylist.ts";
import type { KeySet } from "./key-set.ts";
import { ACCESS_TOKEN_TYPE, type AccessTokenClaims } from "./access-token.ts";
import { invalidToken, joseErrorToOAuth } from "./jose-errors.ts";
import { verifyRs256Jwt, type JoseHeader } from "./jws-verifier.ts";

/** Checked in this order, as jose checked its requiredClaims option plus the issuer; any missing one is the same failure. */
const REQUIRED_CLAIMS = ["iss", "scope", "client_id", "sub", "jti", "iat", "exp"];

/** jose's typ comparison: case-insensitive, and a typ without "/" is short for "application/…" (RFC 7515 §4.1.9). */
function normalizeTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return typ.includes("/") ? lower : `application/${lower}`;
}

const EXPECTED_TYP = normalizeTyp(ACCESS_TOKEN_TYPE);

/**
 * Strict bearer-token validation: RS256 only, a kid we publish, typ at+jwt, our issuer, exp/nbf with
 * the injected clock, the RFC 9068 claims present, and not on the revocation list.
 *
 * This is every bearer-protected request's hot path, so the signature is checked synchronously with
 * node:crypto (jws-verifier.ts) rather than jose's jwtVerify; the claim rules below are the ones
 * jwtVerify applied with the options we gave it (no clock tolerance), in its order, failing with its
 * error classes.
 */
export class AccessTokenVerifier {
  constructor(
    private readonly keys: () => KeySet,
    private readonly issuer: string,
    private readonly clock: Clock,
    private readonly denylist: AccessTokenDenylist,
  ) {}

  async verify(token: string): Promise<AccessTokenClaims> {
    let claims: AccessTokenClaims;
    try {
      const jwt = verifyRs256Jwt(token, (header) => this.keyFor(header));
      claims = this.checkClaims(jwt.header, jwt.claims);
    } catch (err) {
      throw joseErrorToOAuth(err);
    }
    if (await this.denylist.isRevoked(claims.jti)) throw invalidToken("the token has been revoked");
    return claims;
  }

  /** Any key we publish (next, current or retired) for the token's kid. */
  private keyFor(header: JoseHeader) {
    return typeof header.kid === "string" ? this.keys().publicKey(header.kid) : undefined;
  }

  private checkClaims(header: JoseHeader, claims: Record<string, unknown>): AccessTokenClaims {
    const failed = (claim: string, message: string) => new errors.JWTClaimValidationFailed(message, claims, claim, "check_failed");
    if (typeof header.typ !== "string" || normalizeTyp(header.typ) !== EXPECTED_TYP) throw failed("typ", 'unexpected "typ" JWT header value');
    for (const claim of REQUIRED_CLAIMS) {
      if (!Object.hasOwn(claims, claim)) throw failed(claim, `missing required "${claim}" claim`);
    }
    if (claims.iss !== this.issuer) throw failed("iss", 'unexpected "iss" claim value');
    const now = epochSeconds(this.clock);
    // iat only has to be a number: jose compares it with the clock only when given a maxTokenAge.
    if (typeof claims.iat !== "number") throw failed("iat", '"iat" claim must be a number');
    if (claims.nbf !== undefined && typeof claims.nbf !== "number") throw failed("nbf", '"nbf" claim must be a number');
    if (typeof claims.nbf === "number" && claims.nbf > now) throw failed("nbf", '"nbf" claim timestamp check failed');
    if (typeof claims.exp !== "number") throw failed("exp", '"exp" claim must be a number');
    if (claims.exp <= now) throw new errors.JWTExpired('"exp" claim timestamp check failed', claims, "exp", "check_failed");
    return claims as AccessTokenClaims;
  }
}
