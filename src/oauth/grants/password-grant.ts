import { verifyUserPassword } from "../../users/verify-user-password.ts";
import { epochSeconds } from "../../time/clock.ts";
import { invalidGrant, invalidRequest } from "../../errors/oauth-error.ts";
import { formatScope } from "../../scopes/scope.ts";
import { OFFLINE_ACCESS } from "../../scopes/scope-registry.ts";
import type { Provider } from "../../provider.ts";
import type { GrantHandler } from "./grant-handler.ts";
import { recordTokenIssued } from "../../audit/record-token-issued.ts";
import { plannedAccessToken } from "./planned-access-token.ts";
import { userGrantScope } from "./user-grant-scope.ts";
import { randomToken } from "../../crypto/random-token.ts";

const WRONG = "the user name or password is incorrect";

/**
 * Resource-owner password grant (RFC 6749 §4.3), only for clients that enable it. Wrong password,
 * unknown user, disabled user and locked account all get the same invalid_grant.
 */
export const passwordGrant: GrantHandler = async ({ provider, client, params }) => {
  const username = params.get("username");
  const password = params.get("password");
  if (username === undefined || password === undefined) throw invalidRequest("username and password are required");
  const scopes = userGrantScope(params.get("scope"), client);

  const sub = await checkPassword(provider, username, password);
  const authTime = epochSeconds(provider.clock);
  const amr = ["password"];
  // The access token names the refresh family it is issued with, if any: revoking the family revokes it.
  const familyId = client.offlineAccess && scopes.includes(OFFLINE_ACCESS) ? randomToken(16) : undefined;
  const accessToken = plannedAccessToken(provider.clock, client.lifetimes.accessToken, familyId);
  const { token } = await provider.accessTokens.issueAs(client.accessTokenFormat, {
    sub,
    clientId: client.id,
    scopes,
    lifetime: client.lifetimes.accessToken,
    jti: accessToken.jti,
    extra: { auth_time: authTime, amr },
  });
  const response = { access_token: token, token_type: "Bearer" as const, expires_in: client.lifetimes.accessToken, scope: formatScope(scopes) };
  const issued = { client_id: client.id, sub, jti: accessToken.jti, amr, family: familyId };
  if (familyId === undefined) return recordTokenIssued(provider.audit, "password", issued, response);
  const refreshToken = await provider.refreshTokens.issue(
    { clientId: client.id, sub, scopes, familyId, expiresAt: provider.clock() + client.lifetimes.refreshToken * 1000, authTime, amr },
    accessToken,
  );
  return recordTokenIssued(provider.audit, "password", issued, { ...response, refresh_token: refreshToken });
};

async function checkPassword(provider: Provider, username: string, password: string): Promise<string> {
  const sub = await verifyUserPassword(provider, provider.passwordAttempts, username, password);
  if (sub === undefined) throw invalidGrant(WRONG);
  return sub;
}
