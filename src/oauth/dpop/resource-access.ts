import type { AccessTokenClaims } from "../../tokens/access-token.ts";
import type { DpopProofs } from "./dpop-proofs.ts";
import { invalidDpopProof, unboundUse } from "./dpop-errors.ts";

/** An access token as a request presented it: with `Authorization: Bearer` (or a form field), or `Authorization: DPoP`. */
export interface PresentedToken {
  readonly scheme: "Bearer" | "DPoP";
  readonly token: string;
}

const SCHEME = /^(bearer|dpop) +(\S+) *$/i;

/** The token of an `Authorization: Bearer|DPoP` header (schemes are case-insensitive, RFC 9110 §11.1); anything else is none. */
export function parseAuthorization(authorization: string | undefined): PresentedToken | undefined {
  const match = authorization === undefined ? null : SCHEME.exec(authorization);
  if (match === null) return undefined;
  return { scheme: match[1]!.toLowerCase() === "dpop" ? "DPoP" : "Bearer", token: match[2]! };
}

/** The key thumbprint a token is bound to (`cnf.jkt`, RFC 9449 §6), or undefined for a bearer token. */
export function boundKey(claims: AccessTokenClaims): string | undefined {
  const jkt = claims.cnf?.jkt;
  return typeof jkt === "string" ? jkt : undefined;
}

/** The request a resource checks a DPoP token's proof against. */
export interface ResourceRequest {
  readonly dpopHeaders: readonly string[] | undefined;
  readonly method: string;
  /** The resource's own URL as the client called it (what htu must name). */
  readonly url: string;
}

/**
 * RFC 9449 §7: a bound token only with the DPoP scheme and a valid proof by its key (with `ath` over
 * it); an unbound one only as a bearer token. `proofs` undefined: the resource takes no DPoP tokens, so
 * a bound token is refused there rather than accepted as a bearer token.
 */
export async function checkSenderConstraint(
  proofs: DpopProofs | undefined,
  claims: AccessTokenClaims,
  presented: PresentedToken,
  request: ResourceRequest,
): Promise<void> {
  const jkt = boundKey(claims);
  if (jkt === undefined) {
    if (presented.scheme === "DPoP") throw unboundUse("the token is not bound to a key: present it as a Bearer token");
    return;
  }
  if (presented.scheme !== "DPoP") throw unboundUse("the token is bound to a key: present it with the DPoP scheme and a proof");
  if (proofs === undefined) throw unboundUse("this resource does not accept DPoP-bound tokens");
  const proof = await proofs.verify({
    headers: request.dpopHeaders,
    method: request.method,
    url: request.url,
    accessToken: presented.token,
    site: "resource",
  });
  if (proof === undefined) throw invalidDpopProof("a DPoP proof is required with a DPoP token", "resource");
  if (proof.jkt !== jkt) throw unboundUse("the DPoP proof is signed by another key than the token is bound to");
}
