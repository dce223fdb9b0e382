import { errors } from "jose";
import type { Clock } from "../time/clock.ts";
import { epochSeconds } from "../time/clock.ts";
import type { AccessTokenDenylist } from "./access-token-denylist.ts";
import type { KeySet } from "./key-set.ts";
import { ACCESS_TOKEN_TYPE, type AccessTokenClaims } from "./access-token.ts";
import { invalidToken, joseErrorToOAuth } from "./jose-errors.ts";
import { verifyJwt, type JoseHeader } from "./jws-verifier.ts";
import { looksLikeReferenceToken, type ReferenceTokens } from "./reference-tokens.ts";

/** Checked in this order, as jose checked its requiredClaims option plus the issuer; any missing one is the same failure. */
const REQUIRED_CLAIMS = ["iss", "scope", "client_id", "sub", "jti", "iat", "exp"];

/** jose's typ comparison: case-insensitive, and a typ without "/" is short for "application/…" (RFC 7515 §4.1.9). */
function normalizeTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return typ.includes("/") ? lower : `application/${lower}`;
}

const EXPECTED_TYP = normalizeTyp(ACCESS_TOKEN_TYPE);

/**
 * The one entry point for every access token we issue, whatever its format, told apart by shape
 * (reference-tokens.ts): userinfo, introspection, revocation and requireBearer all call verify(), so
 * the formats can never drift apart in what they accept.
 *
 * A reference handle is valid while its record exists, names our issuer and has not reached its exp
 * by the injected clock. A JWT gets strict validation: a kid we publish and exactly its key's alg, typ at+jwt, our
 * issuer, exp/nbf with the injected clock, the RFC 9068 claims present. Both must then be off the
 * revocation list, where a reused code or a revoked refresh family puts the access tokens it issued
 * by jti (those paths know the jti, not the handle).
 *
 * This is every bearer-protected request's hot path, so the signature is checked synchronously with
 * node:crypto (jws-verifier.ts) rather than jose's jwtVerify; the claim rules below are the ones
 * jwtVerify applied with the options we gave it (no clock tolerance), in its order, failing with its
 * error classes.
 */
export class AccessTokenVerifier {
  private readonly keys: () => KeySet;
  private readonly issuer: string;
  private readonly clock: Clock;
  private readonly denylist: AccessTokenDenylist;
  private readonly references: ReferenceTokens;

  constructor(keys: () => KeySet, issuer: string, clock: Clock, denylist: AccessTokenDenylist, references: ReferenceTokens) {
    this.keys = keys;
    this.issuer = issuer;
    this.clock = clock;
    this.denylist = denylist;
    this.references = references;
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    const claims = looksLikeReferenceToken(token) ? await this.referenceClaims(token) : this.jwtClaims(token);
    if (await this.denylist.isRevoked(claims.jti)) throw invalidToken("the token has been revoked");
    return claims;
  }

  private async referenceClaims(handle: string): Promise<AccessTokenClaims> {
    const claims = await this.references.find(handle);
    // Never issued, revoked (its record deleted) or expired out of the store: the store cannot tell which.
    if (claims === undefined || claims.iss !== this.issuer) throw invalidToken("the token is unknown, expired or revoked");
    // A store's TTL may trail the clock (lazy expiry, a sweep); the token's own exp is what counts.
    if (claims.exp <= epochSeconds(this.clock)) throw invalidToken("the token has expired");
    return claims;
  }

  private jwtClaims(token: string): AccessTokenClaims {
    try {
      const jwt = verifyJwt(token, (header) => this.keyFor(header));
      return this.checkClaims(jwt.header, jwt.claims);
    } catch (err) {
      throw joseErrorToOAuth(err);
    }
  }

  /** Any key we publish (next, current or retired) for the token's kid, with the one algorithm it verifies. */
  private keyFor(header: JoseHeader) {
    return typeof header.kid === "string" ? this.keys().verificationKey(header.kid) : undefined;
  }

  private checkClaims(header: JoseHeader, claims: Record<string, unknown>): AccessTokenClaims {
    const failed = (claim: string, message: string) => new errors.JWTClaimValidationFailed(message, claims, claim, "check_failed");
    if (typeof header.typ !== "string" || normalizeTyp(header.typ) !== EXPECTED_TYP)
      throw failed("typ", 'unexpected "typ" JWT header value');
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
