import type { Infra } from "../../infra/infra.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import type { Client } from "../../oauth/client-registry.ts";
import type { IssuedAccessToken } from "../../oauth/refresh-tokens.ts";
import { formatScope } from "../../scopes/scope.ts";
import { isFamilyJti } from "../../tokens/access-token-denylist.ts";
import { referenceTokenKey } from "../../tokens/reference-tokens.ts";
import { type TokenResponse, tokenTypeFor } from "./grant-handler.ts";
import { allowedClaims, type RequestedClaimNames } from "../../oauth/requested-claim-names.ts";
import { USERINFO_CLAIMS } from "../../tokens/access-token.ts";
import { releasedClaims } from "./released-claims.ts";

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
  /** What the authorize request's claims parameter added to userinfo and the ID token. */
  requestedClaims?: RequestedClaimNames;
}

export interface UserTokensRequest {
  infra: Infra;
  /** The token request's policy snapshot: its API resources are the access token's audiences. */
  policy: Pick<PolicySnapshot, "scopes" | "users" | "vendorAccounts">;
  client: Client;
  auth: UserAuthentication;
  scopes: readonly string[];
  accessToken: IssuedAccessToken;
  /** Whether to add an ID token, and the authorize request's nonce for it (never on refresh, OIDC Core §12.2). */
  idToken?: { nonce?: string };
  /** The token request's DPoP proof key: the access token is bound to it. */
  jkt: string | undefined;
}

/**
 * The access token of a user's authentication, in the client's format, with an ID token when asked for. The access token repeats
 * the authentication facts (auth_time, amr, acr, sid) so that an API can check them too (SPEC: after a
 * 2fa login the client must check amr in the ID token and the access token). An access token outside
 * a refresh-token family is filed in its user's ledger (src/user-ledger/), so that an operator's
 * sign-out of the user can deny it; a family's tokens end with their family.
 */
export async function issueUserTokens({
  infra,
  policy,
  client,
  auth,
  scopes,
  accessToken,
  idToken,
  jkt,
}: UserTokensRequest): Promise<TokenResponse> {
  const lifetime = client.lifetimes.accessToken;
  const { token, claims } = await infra.accessTokens.issueAs(client.accessTokenFormat, {
    sub: auth.sub,
    clientId: client.id,
    scopes,
    resources: policy.scopes,
    lifetime,
    jti: accessToken.jti,
    extra: accessTokenExtras(auth, idToken?.nonce),
    jkt,
    alg: client.accessTokenAlg,
  });
  if (!isFamilyJti(claims.jti)) {
    const reference = client.accessTokenFormat === "reference" ? { referenceKey: referenceTokenKey(token) } : undefined;
    await infra.userLedger.record(auth.sub, {
      kind: "access_token",
      jti: claims.jti,
      clientId: client.id,
      issuedAt: claims.iat * 1000,
      until: claims.exp * 1000,
      ...reference,
    });
  }
  const response: TokenResponse = { access_token: token, token_type: tokenTypeFor(jkt), expires_in: lifetime, scope: formatScope(scopes) };
  if (idToken === undefined) return response;
  if (auth.authTime === undefined || auth.amr === undefined || auth.acr === undefined) {
    throw new Error("an ID token needs auth_time, amr and acr");
  }
  const id_token = infra.idTokens.issue({
    sub: auth.sub,
    clientId: client.id,
    nonce: idToken.nonce,
    authTime: auth.authTime,
    amr: auth.amr,
    acr: auth.acr,
    sid: auth.sid,
    accessToken: token,
    lifetime: client.lifetimes.idToken,
    claims: await idTokenClaims(infra, policy, client, auth),
    alg: client.idTokenAlg,
  });
  return { ...response, id_token };
}

/**
 * The ID token's claims beyond the protocol's: the login's (chnl, gps, …) and, where the claims parameter
 * asked for them, the user's own (given_name, birthdate in the client's format, …). Still only those the
 * client's allowed scopes release in today's policy: a reload that narrows them narrows refreshed tokens too.
 */
async function idTokenClaims(
  infra: Infra,
  policy: UserTokensRequest["policy"],
  client: Client,
  auth: UserAuthentication,
): Promise<Record<string, unknown> | undefined> {
  const requested = auth.requestedClaims?.idToken;
  if (requested === undefined) return auth.idTokenClaims;
  const allowed = allowedClaims(client, policy.scopes);
  const names = new Set(requested.filter((name) => allowed.has(name)));
  const user = names.size === 0 ? undefined : await releasedClaims(policy, infra.eid.accounts, client, auth.sub, names);
  // The login's claims after the user's: a login claim is never replaced by a directory's.
  return { ...user, ...auth.idTokenClaims };
}

/**
 * The login claims SPEC "Access token and ID token" gives both tokens: `chnl` (req_chnl), `chnl_name` and
 * `chnl_icon` (chnl_info), `gps` (app_gps), `faceid` (app_faceid). The login planned them as ID-token
 * claims, which refresh tokens carry too, so a refreshed access token has them as well. `custom_scan` is
 * the ID token's alone (SPEC: "ID token after a custom QR-code login").
 */
const LOGIN_CLAIMS_OF_BOTH_TOKENS = ["chnl", "chnl_name", "chnl_icon", "gps", "faceid"] as const;

/**
 * The access token's claims beyond RFC 9068's: the login claims it shares with the ID token, a code's own
 * extra claims, the authorize request's `nonce` (SPEC: when one was sent; a refresh has none, as its
 * ID token has none), and the authentication facts. Only the defined ones.
 */
function accessTokenExtras(auth: UserAuthentication, nonce: string | undefined): Record<string, unknown> {
  // Loops, not Object.entries/fromEntries: two arrays per token response for nothing.
  const extras: Record<string, unknown> = {};
  const idClaims = auth.idTokenClaims;
  if (idClaims !== undefined)
    for (const name of LOGIN_CLAIMS_OF_BOTH_TOKENS) if (idClaims[name] !== undefined) extras[name] = idClaims[name];
  const own: Record<string, unknown> = {
    ...auth.accessTokenClaims,
    nonce,
    auth_time: auth.authTime,
    amr: auth.amr,
    acr: auth.acr,
    sid: auth.sid,
  };
  for (const name in own) if (own[name] !== undefined) extras[name] = own[name];
  // The claims the claims parameter asked userinfo for: the userinfo endpoint reads them from the token it is shown.
  const userinfo = auth.requestedClaims?.userinfo;
  if (userinfo !== undefined) extras[USERINFO_CLAIMS] = userinfo;
  return extras;
}
