import type { Infra } from "../../infra/infra.ts";
import type { Scope } from "../../infra/scope.ts";
import type { Params } from "../../http-kit/params.ts";
import type { AuthorizationCodeGrant } from "../../oauth/authorization-code.ts";
import { presentedCode, type CodeRedemption, type PresentedCode } from "../../oauth/authorization-codes.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { invalidGrant, invalidRequest } from "../../errors/oauth-error.ts";
import { verifyPkce } from "../../oauth/pkce.ts";
import { OFFLINE_ACCESS } from "../../scopes/scope-registry.ts";
import type { GrantHandler, TokenResponse } from "./grant-handler.ts";
import { grantedScope } from "./granted-scope.ts";
import { plannedAccessToken } from "./planned-access-token.ts";
import { issueUserTokens } from "./user-tokens.ts";
import { recordTokenIssued } from "../../audit/record-token-issued.ts";
import { randomToken } from "../../crypto/random-token.ts";
import { belowMinimum, requiredAcr } from "../../login-policy/minimum-acr.ts";
import type { VerifiedProof } from "../../oauth/dpop/dpop-proofs.ts";
import { checkGrantKey, refreshTokenKey } from "../../oauth/dpop/token-request-proof.ts";

// One answer for a code that never existed, has expired or was used: which one is none of the caller's business.
const UNUSABLE = "the authorization code is invalid, expired or already used";

/**
 * authorization_code (RFC 6749 §4.1.3, OIDC Core §3.1.3, RFC 7636 §4.6). The code is checked on a read
 * copy and taken only once every check has passed: a request that fails one (another client, another
 * redirect_uri, a wrong verifier, a missing login_type) leaves the code as it was, as the SPEC's state
 * table has it ("issued" moves to "used" only on a request that meets the conditions). The take is
 * atomic, so of any number of requests that pass, one gets the code and the others count as its reuse.
 */
export const authorizationCodeGrant: GrantHandler = async ({ infra, policy, client, params, proof }) => {
  const { code, redirectUri } = requiredParams(params);
  const presented = presentedCode(code);
  const grant = (await infra.codes.peek(presented)) ?? (await refuseUnusable(infra, presented, client.id));
  // The code is bound to the client it was issued to.
  if (grant.clientId !== client.id) throw invalidGrant("the authorization code was issued to another client");
  // The user was removed or disabled after logging in.
  if (!(await policy.users.isActive(grant.sub))) throw invalidGrant(UNUSABLE);
  // The client's minimum_acr, raised since the login the code stands for, holds here too.
  const below = belowMinimum(grant.acr, requiredAcr(undefined, client.config.minimum_acr));
  if (below !== undefined) throw invalidGrant(below);
  // RFC 6749 §4.1.3: redirect_uri byte-equal to the authorize request's.
  if (grant.redirectUri !== redirectUri) throw invalidGrant("redirect_uri does not match the authorization request");
  checkPkce(grant, client, params.get("code_verifier"));
  checkLoginType(grant, params.get("login_type"));
  // RFC 9449 §10: a code whose authorize request named dpop_jkt needs a proof by that key.
  checkGrantKey(proof, grant.dpopJkt, "authorization code");
  const scopes = grantedScope(params.get("scope"), grant.scopes);
  // Taken now, for good; another request that took it meanwhile makes this one a reuse.
  if ((await infra.codes.take(presented)) === undefined) await refuseUnusable(infra, presented, client.id);
  return redeem({ infra, policy }, client, presented, grant, scopes, proof);
};

/** code and redirect_uri are required (SPEC "Token" form fields). */
function requiredParams(params: Params): { code: string; redirectUri: string } {
  const code = params.get("code");
  const redirectUri = params.get("redirect_uri");
  if (code === undefined) throw invalidRequest("code is required");
  if (redirectUri === undefined) throw invalidRequest("redirect_uri is required");
  return { code, redirectUri };
}

/** A code that is gone (never issued, expired, or used) is refused; if it was redeemed, what that issued is revoked. */
async function refuseUnusable(infra: Infra, code: PresentedCode, presentedBy: string): Promise<never> {
  const earlier = await infra.codes.reuse(code);
  if (earlier !== undefined) await revokeRedemption(infra, earlier, presentedBy);
  throw invalidGrant(UNUSABLE);
}

/** RFC 7636 §4.6: a code with a challenge needs the matching verifier; a code without one takes none. */
function checkPkce(grant: AuthorizationCodeGrant, client: Client, verifier: string | undefined): void {
  if (grant.codeChallenge === undefined) {
    if (verifier !== undefined) throw invalidGrant("code_verifier was sent but the authorization request had no code_challenge");
    // Defence in depth: the authorize endpoint already refuses such a request for this client.
    if (client.requirePkce) throw invalidGrant("the client must use PKCE");
    return;
  }
  if (verifier === undefined) throw invalidGrant("code_verifier is required");
  // RFC 7636 §4.3: no method means plain.
  if (!verifyPkce(grant.codeChallenge, grant.codeChallengeMethod ?? "plain", verifier))
    throw invalidGrant("code_verifier does not match the code_challenge");
}

/** SPEC "Token": when the authorize request used a login_type that requires it, the token request repeats it. */
function checkLoginType(grant: AuthorizationCodeGrant, loginType: string | undefined): void {
  if (grant.loginType === undefined || loginType === grant.loginType) return;
  // Said plainly: the code is still there for a request that repeats the login_type.
  throw invalidGrant(
    loginType === undefined
      ? "login_type is required: repeat the authorization request's login_type"
      : "login_type does not match the authorization request's",
  );
}

/**
 * Issues the tokens. What they will be is recorded under the code first (jti and family id chosen in
 * advance), so a second presentation of the code can revoke them whenever it comes.
 */
async function redeem(
  { infra, policy }: Scope,
  client: Client,
  code: PresentedCode,
  grant: AuthorizationCodeGrant,
  scopes: string[],
  proof: VerifiedProof | undefined,
): Promise<TokenResponse> {
  // SPEC "Refresh token": only with offline_access in the scope and offline access enabled for the client.
  const refreshFamily =
    scopes.includes(OFFLINE_ACCESS) && client.offlineAccess
      ? { familyId: randomToken(16), expiresAt: infra.clock() + client.lifetimes.refreshToken * 1000 }
      : undefined;
  // The access token names the family it is issued with: revoking the family revokes it.
  const redemption: CodeRedemption = {
    accessToken: plannedAccessToken(infra.clock, client.lifetimes.accessToken, refreshFamily?.familyId),
  };
  if (refreshFamily) redemption.refreshFamily = refreshFamily;
  const uncontested = await infra.codes.recordRedemption(code, redemption);

  const response = await issueUserTokens({
    infra,
    policy,
    client,
    auth: grant,
    scopes,
    accessToken: redemption.accessToken,
    ...(scopes.includes("openid") && { idToken: { nonce: grant.nonce } }),
    jkt: proof?.jkt,
  });
  if (redemption.refreshFamily)
    response.refresh_token = await issueRefreshToken(infra, client, grant, scopes, redemption, refreshTokenKey(client, proof));
  // The code was presented again while this redemption was in flight: what it issued is revoked already at birth.
  if (!uncontested) await revokeRedemption(infra, redemption, client.id);
  const { sub, amr, acr, sid, loginId } = grant;
  const issued = {
    client_id: client.id,
    sub,
    jti: redemption.accessToken.jti,
    amr,
    acr,
    sid,
    family: redemption.refreshFamily?.familyId,
    login_id: loginId,
    dpop_jkt: proof?.jkt,
  };
  return recordTokenIssued(infra.audit, "authorization_code", issued, response);
}

function issueRefreshToken(
  infra: Infra,
  client: Client,
  grant: AuthorizationCodeGrant,
  scopes: string[],
  redemption: CodeRedemption,
  jkt: string | undefined,
): Promise<string> {
  const { familyId, expiresAt } = redemption.refreshFamily!;
  return infra.refreshTokens.issue(
    {
      clientId: client.id,
      sub: grant.sub,
      scopes,
      familyId,
      expiresAt,
      authTime: grant.authTime,
      amr: grant.amr,
      acr: grant.acr,
      sid: grant.sid,
      idTokenClaims: grant.idTokenClaims,
      requestedClaims: grant.requestedClaims,
      ...(jkt !== undefined && { jkt }),
    },
    redemption.accessToken,
  );
}

/**
 * RFC 6749 §4.1.2: a code used twice revokes the tokens issued on it. Audited: the revoked access token's
 * jti (its token.issued names the login and client) and refresh family, and the client that presented
 * the code again.
 */
async function revokeRedemption(infra: Infra, redemption: CodeRedemption, presentedBy: string): Promise<void> {
  await infra.accessTokenDenylist.revoke(redemption.accessToken.jti, redemption.accessToken.exp);
  if (redemption.refreshFamily) await infra.refreshTokens.revokeFamily(redemption.refreshFamily);
  const family = redemption.refreshFamily?.familyId;
  infra.audit.record({
    type: "authorization_code.reuse_detected",
    jti: redemption.accessToken.jti,
    ...(family !== undefined && { family }),
    client_id: presentedBy,
  });
}
