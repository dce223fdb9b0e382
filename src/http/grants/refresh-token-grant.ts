import type { Scope } from "../../infra/scope.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { invalidGrant, invalidRequest } from "../../errors/oauth-error.ts";
import type { RefreshGrant } from "../../oauth/refresh-tokens.ts";
import type { GrantHandler } from "./grant-handler.ts";
import { grantedScope } from "./granted-scope.ts";
import { plannedAccessToken } from "./planned-access-token.ts";
import { issueUserTokens } from "./user-tokens.ts";
import { recordTokenIssued } from "../../audit/record-token-issued.ts";
import { belowMinimum, requiredAcr } from "../../login-policy/minimum-acr.ts";
import { checkGrantKey, refreshTokenKey } from "../../oauth/dpop/token-request-proof.ts";

// One answer for a token that never existed, has expired, was revoked or was used.
const UNUSABLE = "the refresh token is invalid, expired, revoked or already used";

/**
 * refresh_token (RFC 6749 §6), rotated on every use (RFC 9700 §4.14.2). The token is checked first by a
 * read, so a request refused for its client or scope uses nothing up; then it is taken atomically, and
 * only the one request that takes it gets tokens. A used token presented again revokes its family.
 * A client that does not rotate (a FAPI 2.0 client, RefreshTokens.keep) keeps its token: nothing is
 * taken, and every refresh with it gets a new access token until it expires or is revoked.
 */
export const refreshTokenGrant: GrantHandler = async ({ infra, policy, client, params, proof }) => {
  const token = params.get("refresh_token");
  if (token === undefined) throw invalidRequest("refresh_token is required");
  const grant = await liveGrant({ infra, policy }, token, client);
  // A bound refresh token (a public client's) is refreshed only by the key it is bound to; checked before the rotation uses it up.
  checkGrantKey(proof, grant.jkt, "refresh token");
  // RFC 6749 §6: the scope may only narrow; the successor keeps the whole grant.
  const scopes = grantedScope(params.get("scope"), grant.scopes);

  const accessToken = plannedAccessToken(infra.clock, client.lifetimes.accessToken, grant.familyId);
  // A public client that starts using DPoP at a refresh gets a successor bound to the proof's key (RFC 9449 §5).
  const jkt = grant.jkt ?? refreshTokenKey(client, proof);
  // A FAPI 2.0 client's token is not rotated: it stays, and a retry after a lost answer works (FAPI 2.0 §5.3.2.1).
  const rotation = client.rotatesRefreshTokens
    ? await infra.refreshTokens.rotate(token, accessToken, jkt === grant.jkt ? grant : { ...grant, jkt })
    : await infra.refreshTokens.keep(token, accessToken, grant);
  if (rotation === undefined) throw invalidGrant(UNUSABLE);

  const response = await issueUserTokens({
    infra,
    policy,
    client,
    auth: rotation.grant,
    scopes,
    accessToken,
    // Bound to the key of this request's proof, whoever the client: a confidential client's new tokens stay sender-constrained too.
    jkt: proof?.jkt,
    // OIDC Core §12.2: same sub, auth_time, amr, acr, sid, no nonce. A family from the password grant
    // (no acr: no OIDC login) got no ID token at first and gets none now.
    ...(scopes.includes("openid") && rotation.grant.acr !== undefined && { idToken: {} }),
  });
  const { sub, amr, acr, sid, familyId } = rotation.grant;
  return recordTokenIssued(
    infra.audit,
    "refresh_token",
    { client_id: client.id, sub, jti: accessToken.jti, amr, acr, sid, family: familyId, dpop_jkt: proof?.jkt },
    { ...response, refresh_token: rotation.token },
  );
};

/** The grant of a live token of this client; a token that is not live may be a reused one, which revokes its family. */
async function liveGrant({ infra, policy }: Scope, token: string, client: Client): Promise<RefreshGrant> {
  const grant = await infra.refreshTokens.find(token);
  if (grant === undefined) {
    await infra.refreshTokens.detectReuse(token);
    throw invalidGrant(UNUSABLE);
  }
  if (grant.clientId !== client.id) throw invalidGrant("the refresh token was issued to another client");
  // A user removed or disabled since the grant ends it, and everything it issued.
  if (!(await policy.users.isActive(grant.sub))) {
    await infra.refreshTokens.revokeFamily(grant);
    throw invalidGrant(UNUSABLE);
  }
  // The SSO session the family was issued from has ended, and the client's refresh tokens end with it.
  if (client.refreshTokenEndsWithSession && grant.sid !== undefined && (await infra.endedSessions.hasEnded(grant.sid))) {
    await infra.refreshTokens.revokeFamily(grant);
    throw invalidGrant(UNUSABLE);
  }
  // The store's TTL already ends the family; this holds to the provider's clock as well.
  if (grant.expiresAt <= infra.clock()) throw invalidGrant(UNUSABLE);
  // An operator who turns offline access off for a client ends its refreshes too.
  if (!client.offlineAccess) throw invalidGrant("offline access is not enabled for the client");
  // A client whose minimum_acr was raised above the family's login gets no more tokens from it (a family
  // without acr came from the password grant: one factor). The family stays: lowering the minimum again revives it.
  const below = belowMinimum(grant.acr ?? "1fa", requiredAcr(undefined, client.config.minimum_acr));
  if (below !== undefined) throw invalidGrant(below);
  return grant;
}
