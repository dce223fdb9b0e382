import { type OAuthError, oauthError } from "../../errors/oauth-error.ts";
import { DPOP_ALGORITHMS } from "../../crypto/dpop-algorithms.ts";

/** Where a proof is checked: the token endpoint answers 400 in JSON (RFC 9449 §5), a resource 401 with a DPoP challenge (§7.1). */
export type ProofSite = "token" | "resource";

/** A resource's DPoP challenge (RFC 9449 §7.1): the error, if any, and the algorithms it takes. */
export function dpopChallenge(error?: string, description?: string): string {
  const parts = ['DPoP realm="portcullis"'];
  if (error !== undefined) parts.push(`error="${error}"`);
  if (description !== undefined) parts.push(`error_description="${description}"`);
  parts.push(`algs="${DPOP_ALGORITHMS.join(" ")}"`);
  return parts.join(", ");
}

/** The proof is missing where it is required, malformed, or fails a check. The description names the check, never the key or token. */
export function invalidDpopProof(description: string, site: ProofSite): OAuthError {
  if (site === "token") return oauthError("invalid_dpop_proof", description);
  return oauthError("invalid_dpop_proof", description, {
    status: 401,
    headers: { "WWW-Authenticate": dpopChallenge("invalid_dpop_proof", description) },
  });
}

/** RFC 9449 §8, §9: the proof lacks the current server nonce; `nonce` is the one to use. */
export function useDpopNonce(nonce: string, site: ProofSite): OAuthError {
  const description = "the DPoP proof must carry the server's current nonce";
  if (site === "token") return oauthError("use_dpop_nonce", description, { headers: { "DPoP-Nonce": nonce } });
  return oauthError("use_dpop_nonce", description, {
    status: 401,
    headers: { "WWW-Authenticate": dpopChallenge("use_dpop_nonce", description), "DPoP-Nonce": nonce },
  });
}

/** A token refused at a resource for its binding (a bound token as Bearer, or a proof by another key): invalid_token with a DPoP challenge. */
export function unboundUse(description: string): OAuthError {
  return oauthError("invalid_token", description, { headers: { "WWW-Authenticate": dpopChallenge("invalid_token", description) } });
}
