import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthorizationRequest, Authentication } from "../../oauth/authorization-request.ts";
import type { Provider } from "../../provider.ts";
import type { SsoSession } from "../../sessions/sso-sessions.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { startSession } from "../../sessions/start-session.ts";
import type { BrowserPages, ResponsePage } from "../browser-pages.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { clientFrameAncestors } from "./client-frame-ancestors.ts";

/** The SSO session an authorization completes in: an existing one (SSO), or a fresh login. */
export type SessionSource = { existing: SsoSession; cookie: string } | { login: Authentication };

/**
 * Finishes an authorize request for an authenticated user: starts the SSO session after a login
 * (a new cookie every time: no session fixation), records the client in it for single sign-out,
 * issues the code, and answers the client.
 */
export async function completeAuthorization(provider: Provider, pages: BrowserPages, req: IncomingMessage, res: ServerResponse, request: AuthorizationRequest, source: SessionSource): Promise<void> {
  const headers: Record<string, string> = {};
  const { cookie, session: started } = "existing" in source ? { cookie: source.cookie, session: source.existing } : await startSession(provider, req, source.login);
  if (!("existing" in source)) headers["Set-Cookie"] = provider.cookies.set(SESSION_COOKIE, cookie, { sameSiteNone: request.framed });
  const session = await provider.sessions.touch(cookie, started, request.clientId);
  const client = provider.clients.get(request.clientId)!;
  const code = await provider.codes.issue(
    {
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      sub: session.sub,
      authTime: session.authTime,
      amr: session.amr,
      acr: session.acr,
      sid: session.sid,
      loginType: request.loginType,
    },
    client.lifetimes.authorizationCode,
  );
  // SPEC: the login_type the login used goes back with the code (the token request repeats it).
  writeAuthorizationResponse(res, pages, request, { code, iss: provider.issuer, login_type: request.loginType }, responsePage(req, request, client), headers);
}

/** How the response page of this request is shown: its language, and its framing for iframe_authz. */
export function responsePage(req: IncomingMessage, request: AuthorizationRequest, client: Client): ResponsePage {
  return { lang: request.lang, acceptLanguage: req.headers["accept-language"], frameAncestors: request.framed ? clientFrameAncestors(client) : undefined };
}
