import { oauthError } from "../../errors/oauth-error.ts";
import type { Client } from "../../oauth/client-registry.ts";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { LoginPolicy } from "../../login-policy/login-policy.ts";
import { planAuthorizeRequest, type AuthorizeFacts } from "../../login-policy/plan-authorize-request.ts";
import type { LoginPlan, SessionFacts } from "../../login-policy/plan-login.ts";
import type { SsoSession } from "../../sessions/sso-sessions.ts";
import type { RawAuthorizeParams } from "./authorize-params.ts";

/**
 * The authorize step that plans the login (src/login-policy): which login type and flow, whether the
 * session may be used, what the tokens carry. A refusal goes back to the client, with state and iss.
 */
export function planAuthorization(
  login: LoginPolicy,
  client: Client,
  raw: RawAuthorizeParams,
  request: AuthorizationRequest,
  endpoint: AuthorizeFacts["endpoint"],
  session?: SsoSession,
): LoginPlan {
  const get = (name: string) => raw.values.get(name);
  const facts: AuthorizeFacts = {
    endpoint,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    loginType: get("login_type"),
    fa: get("fa"),
    acrValues: get("acr_values"),
    loginHint: request.loginHint,
    signature: get("signature"),
    ...(request.claims?.acr && { acrClaim: request.claims.acr }),
  };
  const planningClient = {
    id: client.id,
    allowedLoginTypes: client.allowedLoginTypes,
    signingKey: client.vendorSigningKey,
    ...(client.config.minimum_acr !== undefined && { minimumAcr: client.config.minimum_acr }),
  };
  const result = planAuthorizeRequest(login, planningClient, facts, session && sessionFacts(session));
  if (!result.ok) throw oauthError(result.error, result.description, { allowRedirect: true });
  return result.plan;
}

/** What a session proves: its methods (sessions from before methods were kept: their amr, which names them). */
export function sessionFacts(session: SsoSession): SessionFacts {
  return { methods: session.methods ?? session.amr.filter((amr) => amr !== "mfa"), acr: session.acr };
}
