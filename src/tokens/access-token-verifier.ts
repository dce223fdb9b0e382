import { jwtVerify, type JWTHeaderParameters } from "jose";
import type { Clock } from "../clock.ts";
import type { AccessTokenDenylist } from "./access-token-denylist.ts";
import type { KeySet } from "./key-set.ts";
import { ACCESS_TOKEN_TYPE, type AccessTokenClaims } from "./access-token.ts";
import { invalidToken, joseErrorToOAuth } from "./jose-errors.ts";

/**
 * Strict bearer-token validation: RS256 only, a kid we publish, typ at+jwt, our issuer, exp/nbf with
 * the injected clock, the RFC 9068 claims present, and not on the revocation list.
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
      const result = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        algorithms: ["RS256"],
        issuer: this.issuer,
        typ: ACCESS_TOKEN_TYPE,
        currentDate: new Date(this.clock()),
        requiredClaims: ["exp", "iat", "jti", "sub", "client_id", "scope"],
      });
      claims = result.payload as AccessTokenClaims;
    } catch (err) {
      throw joseErrorToOAuth(err);
    }
    if (await this.denylist.isRevoked(claims.jti)) throw invalidToken("the token has been revoked");
    return claims;
  }

  private keyFor(header: JWTHeaderParameters) {
    const key = header.kid === undefined ? undefined : this.keys().publicKey(header.kid);
    if (!key) throw Object.assign(new Error("unknown kid"), { code: "ERR_JWKS_NO_MATCHING_KEY" });
    return key;
  }
}
