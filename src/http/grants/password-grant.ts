import { verifyUserPassword } from "../../users/verify-user-password.ts";
import { epochSeconds } from "../../time/clock.ts";
import { invalidGrant, invalidRequest } from "../../errors/oauth-error.ts";
import { OFFLINE_ACCESS } from "../../scopes/scope-registry.ts";
import type { Scope } from "../../infra/scope.ts";
import type { GrantHandler } from "./grant-handler.ts";
import { recordTokenIssued } from "../../audit/record-token-issued.ts";
import { plannedAccessToken } from "./planned-access-token.ts";
import { issueUserTokens } from "./user-tokens.ts";
import { userGrantScope } from "./user-grant-scope.ts";
import { randomToken } from "../../crypto/random-token.ts";
import { refreshTokenKey } from "../../oauth/dpop/token-request-proof.ts";

const WRONG = "the user name or password is incorrect";
/** The audit trail's flow id for a password-grant login (no login.yaml flow runs one). */
export const PASSWORD_GRANT_FLOW = "password_grant";

/**
 * Resource-owner password grant (RFC 6749 §4.3), only for clients that enable it. Wrong password,
 * unknown user, disabled user and locked account all get the same invalid_grant.
 */
export const passwordGrant: GrantHandler = async ({ infra, policy, client, params, proof }) => {
  const username = params.get("username");
  const password = params.get("password");
  if (username === undefined || password === undefined) throw invalidRequest("username and password are required");
  const scopes = userGrantScope(params.get("scope"), client);

  const sub = await checkPassword({ infra, policy }, client.id, username, password);
  const authTime = epochSeconds(infra.clock);
  const amr = ["password"];
  // A login, though no flow ran: auditors see it as one, and its token.issued names it.
  const loginId = randomToken(16);
  infra.audit.record({
    type: "login.succeeded",
    flow_id: PASSWORD_GRANT_FLOW,
    path: [],
    login_id: loginId,
    client_id: client.id,
    sub,
    amr,
  });
  // The access token names the refresh family it is issued with, if any: revoking the family revokes it.
  const familyId = client.offlineAccess && scopes.includes(OFFLINE_ACCESS) ? randomToken(16) : undefined;
  const accessToken = plannedAccessToken(infra.clock, client.lifetimes.accessToken, familyId);
  // No ID token: no OIDC login ran (the access token carries auth_time and amr).
  const response = await issueUserTokens({ infra, policy, client, auth: { sub, authTime, amr }, scopes, accessToken, jkt: proof?.jkt });
  const issued = { client_id: client.id, sub, jti: accessToken.jti, amr, family: familyId, login_id: loginId, dpop_jkt: proof?.jkt };
  if (familyId === undefined) return recordTokenIssued(infra.audit, "password", issued, response);
  const jkt = refreshTokenKey(client, proof);
  const refreshToken = await infra.refreshTokens.issue(
    {
      clientId: client.id,
      sub,
      scopes,
      familyId,
      expiresAt: infra.clock() + client.lifetimes.refreshToken * 1000,
      authTime,
      amr,
      ...(jkt !== undefined && { jkt }),
    },
    accessToken,
  );
  return recordTokenIssued(infra.audit, "password", issued, { ...response, refresh_token: refreshToken });
};

/**
 * The user's sub, or invalid_grant, audited as a failed login. The trail names the account tried when
 * there is one (an auditor must see a guessing run against it), never the user name as typed: a
 * password typed into the wrong field would otherwise be written down.
 */
async function checkPassword({ infra, policy }: Scope, clientId: string, username: string, password: string): Promise<string> {
  const sub = await verifyUserPassword(
    { users: policy.users, passwordChecks: infra.passwordChecks },
    infra.passwordAttempts,
    username,
    password,
  );
  if (sub !== undefined) return sub;
  const tried = (await policy.users.findByUsername(username))?.sub;
  infra.audit.record({
    type: "login.failed",
    flow_id: PASSWORD_GRANT_FLOW,
    path: [],
    client_id: clientId,
    ...(tried !== undefined && { sub: tried }),
    reason: "invalid_grant",
  });
  throw invalidGrant(WRONG);
}
