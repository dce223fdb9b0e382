import { jwtVerify, type JWTHeaderParameters } from "jose";
import type { Client, ClientRegistry } from "./client-registry.ts";
import { invalidRequest, type OAuthError } from "../errors/oauth-error.ts";
import type { KeySet } from "../tokens/key-set.ts";
import { describeJoseError } from "../tokens/jose-errors.ts";
import { SIGNING_ALGS } from "../crypto/signing-alg.ts";

/** A verified id_token_hint: who it names, for which client, in which session. */
export interface IdTokenHint {
  sub: string;
  /** The client the ID token was issued to (its aud, or azp among several audiences). */
  client: Client;
  /** The SSO session it was issued in; absent for login types that keep no session. */
  sid?: string;
}

/** typ of the ID tokens we issue (tokens/id-token.ts). Access and logout tokens are not hints. */
const ID_TOKEN_TYPE = "JWT";

/**
 * `exp` is deliberately not checked (SPEC "End session"; OIDC RP-Initiated Logout §2: the OP should
 * accept an expired hint of a known session). jose cannot skip one claim, so the clock tolerance is
 * made larger than any date: exp (and nbf, which our ID tokens never carry) always pass, while the
 * signature, alg, kid, typ, iss and the required claims are checked as usual. The age limit is the key
 * set: a hint signed by a key that is no longer published does not verify.
 */
const IGNORE_EXPIRY = Number.MAX_SAFE_INTEGER;

/**
 * Verifies an id_token_hint: an ID token this provider signed (a published kid, exactly the alg that key
 * is published with, typ JWT, our issuer) for a registered client. Any failure is one `invalid_request` naming the reason.
 */
export class IdTokenHintVerifier {
  private readonly keys: () => KeySet;
  private readonly issuer: string;

  constructor(keys: () => KeySet, issuer: string) {
    this.keys = keys;
    this.issuer = issuer;
  }

  /** `clients`: the registry of the request's policy snapshot (after a reload, src/reload/, the new one). */
  async verify(token: string, clients: Pick<ClientRegistry, "get">): Promise<IdTokenHint> {
    let payload: Record<string, unknown>;
    try {
      const result = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        algorithms: [...SIGNING_ALGS],
        issuer: this.issuer,
        typ: ID_TOKEN_TYPE,
        clockTolerance: IGNORE_EXPIRY,
        requiredClaims: ["sub", "aud", "iat", "exp"],
      });
      payload = result.payload;
    } catch (err) {
      throw invalidHint(describeJoseError(err));
    }
    const { sub, sid } = payload;
    if (typeof sub !== "string" || sub === "") throw invalidHint("the token has no subject");
    if (sid !== undefined && typeof sid !== "string") throw invalidHint("a token claim is not acceptable");
    const client = clients.get(clientIdOf(payload) ?? "");
    if (!client) throw invalidHint("the token was not issued to a registered client");
    return { sub, client, ...(sid !== undefined && { sid }) };
  }

  private keyFor(header: JWTHeaderParameters) {
    const key = header.kid === undefined ? undefined : this.keys().verificationKey(header.kid);
    if (!key) throw Object.assign(new Error("unknown kid"), { code: "ERR_JWKS_NO_MATCHING_KEY" });
    // A key verifies its own algorithm only: jose would check an RS256 key's PS256 signature if asked.
    if (header.alg !== key.alg) throw Object.assign(new Error("alg is not the key's"), { code: "ERR_JOSE_ALG_NOT_ALLOWED" });
    return key.publicKey;
  }
}

/** OIDC Core §2: the client is the single audience, or azp when there are several. */
function clientIdOf(payload: Record<string, unknown>): string | undefined {
  const { aud, azp } = payload;
  if (typeof aud === "string") return aud;
  if (!Array.isArray(aud)) return undefined;
  if (aud.length === 1 && typeof aud[0] === "string") return aud[0];
  return typeof azp === "string" && aud.includes(azp) ? azp : undefined;
}

function invalidHint(reason: string): OAuthError {
  return invalidRequest(`id_token_hint is not valid: ${reason}`);
}
