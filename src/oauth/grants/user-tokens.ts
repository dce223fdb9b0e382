import type { Provider } from "../../provider.ts";
import type { Client } from "../client-registry.ts";
import type { IssuedAccessToken } from "../refresh-tokens.ts";
import { formatScope } from "../../scopes/scope.ts";
import type { TokenResponse } from "./grant-handler.ts";

/** The authentication a user-bound token speaks for: from a code, or carried by a refresh token. */
export interface UserAuthentication {
  sub: string;
  authTime?: number;
  amr?: string[];
  /** Absent only for grants without an OIDC login (password), which get no ID token. */
  acr?: string;
  sid?: string;
  idTokenClaims?: Record<string, unknown>;
  /** Extra access-token claims (a code's; refresh tokens do not carry them). */
  accessTokenClaims?: Record<string, unknown>;
}

export interface UserTokensRequest {
  provider: Provider;
  client: Client;
  auth: UserAuthentication;
  scopes: readonly string[];
  accessToken: IssuedAccessToken;
  /** Whether to add an ID token, and the authorize request's nonce for it (never on refresh, OIDC Core §12.2). */
  idToken?: { nonce?: string };
}

/**
 * The access token of a user's authentication, in the client's format, with an ID token when asked for. The access token repeats
 * the authentication facts (auth_time, amr, acr, sid) so that an API can check them too (SPEC: after a
 * 2fa login the client must check amr in the ID token and the access token).
 */
export async function issueUserTokens({ provider, client, auth, scopes, accessToken, idToken }: UserTokensRequest): Promise<TokenResponse> {
  const lifetime = client.lifetimes.accessToken;
  const { token } = await provider.accessTokens.issueAs(client.accessTokenFormat, {
    sub: auth.sub,
    clientId: client.id,
    scopes,
    lifetime,
    jti: accessToken.jti,
    extra: definedOnly({ ...auth.accessTokenClaims, auth_time: auth.authTime, amr: auth.amr, acr: auth.acr, sid: auth.sid }),
  });
  const response: TokenResponse = { access_token: token, token_type: "Bearer", expires_in: lifetime, scope: formatScope(scopes) };
  if (idToken === undefined) return response;
  if (auth.authTime === undefined || auth.amr === undefined || auth.acr === undefined) {
    throw new Error("an ID token needs auth_time, amr and acr");
  }
  const id_token = provider.idTokens.issue({
    sub: auth.sub,
    clientId: client.id,
    nonce: idToken.nonce,
    authTime: auth.authTime,
    amr: auth.amr,
    acr: auth.acr,
    sid: auth.sid,
    accessToken: token,
    lifetime: client.lifetimes.idToken,
    claims: auth.idTokenClaims,
  });
  return { ...response, id_token };
}

function definedOnly(claims: Record<string, unknown>): Record<string, unknown> {
  // A loop, not Object.entries/fromEntries: two arrays per token response for nothing.
  const defined: Record<string, unknown> = {};
  for (const name in claims) if (claims[name] !== undefined) defined[name] = claims[name];
  return defined;
}
