import { type OAuthError, oauthError } from "../errors/oauth-error.ts";

/**
 * jose error codes → what a bearer-token caller is told. One table instead of instanceof chains;
 * any code not listed is a token we cannot read.
 */
const DESCRIPTIONS: Record<string, string> = {
  ERR_JWT_EXPIRED: "the token has expired",
  ERR_JWT_CLAIM_VALIDATION_FAILED: "a token claim is not acceptable",
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: "the token signature is invalid",
  ERR_JOSE_ALG_NOT_ALLOWED: "the token algorithm is not accepted",
  ERR_JWKS_NO_MATCHING_KEY: "the token was not signed by this issuer",
  ERR_JWS_INVALID: "the token is malformed",
  ERR_JWT_INVALID: "the token is malformed",
  ERR_JOSE_NOT_SUPPORTED: "the token uses an unsupported feature",
};

export function invalidToken(description: string): OAuthError {
  return oauthError("invalid_token", description, {
    headers: { "WWW-Authenticate": `Bearer realm="portcullis", error="invalid_token", error_description="${description}"` },
  });
}

/** What a jose verification failure means for the caller; anything that is not a jose error is rethrown. */
export function describeJoseError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("ERR_J")) return DESCRIPTIONS[code] ?? "the token is malformed";
  throw err;
}

/** Maps a jose verification failure to 401 invalid_token; anything that is not a jose error is rethrown. */
export function joseErrorToOAuth(err: unknown): OAuthError {
  return invalidToken(describeJoseError(err));
}
