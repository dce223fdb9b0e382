/**
 * A relying party's authorization request as openid-client builds it: PKCE S256, state and nonce, and
 * the checks to hand back to `authorizationCodeGrant` with the browser's redirect.
 */
import * as oidc from "openid-client";

/** What the relying party keeps between sending the browser off and getting it back. */
export interface PendingAuthorization {
  url: URL;
  checks: { pkceCodeVerifier: string; expectedState: string; expectedNonce: string; maxAge?: number };
}

/** An authorize URL with PKCE S256, state and nonce; `params` (redirect_uri, scope, ...) add to or replace them. */
export async function startAuthorization(config: oidc.Configuration, params: Record<string, string>): Promise<PendingAuthorization> {
  const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
  const expectedState = oidc.randomState();
  const expectedNonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: "S256",
    state: expectedState,
    nonce: expectedNonce,
    ...params,
  });
  const maxAge = params.max_age === undefined ? undefined : Number(params.max_age);
  return { url, checks: { pkceCodeVerifier, expectedState, expectedNonce, ...(maxAge !== undefined && { maxAge }) } };
}
