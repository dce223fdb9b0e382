import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthorizationRequest, Authentication } from "../../oauth/authorization-request.ts";
import type { Infra } from "../../infra/infra.ts";
import type { Scope } from "../../infra/scope.ts";
import type { SsoSession } from "../../sessions/sso-sessions.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { startSession } from "../../sessions/start-session.ts";
import type { BrowserPages, ResponsePage } from "../../views/browser-pages.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { clientFrameAncestors } from "./client-frame-ancestors.ts";
import { planClaims } from "./plan-claims.ts";
import { offerChannels } from "./channel-choice.ts";
import { extensionContributions } from "./extension-contributions.ts";
import type { AuthorizationCodeGrant } from "../../oauth/authorization-code.ts";
import { belowMinimum, requiredAcr } from "../../login-policy/minimum-acr.ts";
import { releasableClaims } from "../../oauth/requested-claim-names.ts";

/** The SSO session an authorization completes in: an existing one (SSO), or a fresh login. */
export type SessionSource = { existing: SsoSession; cookie: string } | { login: Authentication };

/**
 * Finishes an authorize request for an authenticated user: adds the claims the plan asks for (a
 * channel, the trusted app's GPS and face results), starts the SSO session after a login (a new cookie
 * every time: no session fixation) unless the login type keeps none, records the client in it for
 * single sign-out, issues the code, and answers the client — with login_type when the request named one.
 * `chosenChannel`: the channel the user picked on the chooser page (req_chnl, several administered);
 * `leaveRedirectChain`: answer with a page (the caller arrived by a redirect from elsewhere, see responsePage);
 * `byExtension`: an extension authenticated the user (src/extensions/contract: ExtensionHttp.completeLogin) —
 * no SSO session, its ID-token claims, and the extensions are not asked about their own login.
 */
export async function completeAuthorization(
  { infra, policy }: Scope,
  pages: BrowserPages,
  req: IncomingMessage,
  res: ServerResponse,
  request: AuthorizationRequest,
  source: SessionSource,
  {
    chosenChannel,
    leaveRedirectChain = false,
    byExtension,
  }: {
    chosenChannel?: string;
    leaveRedirectChain?: boolean;
    byExtension?: { idTokenClaims: Record<string, unknown> };
  } = {},
): Promise<void> {
  // The request's snapshot, the one it read its client from, so a reload meanwhile cannot lose it (src/reload/).
  const client = policy.clients.get(request.clientId)!;
  const page = responsePage(req, request, client, leaveRedirectChain);
  const user = "existing" in source ? source.existing : source.login;
  // The minimum is planned for (unmet_authentication_requirements when no login could reach it); this
  // catches any login or session that ended below it all the same: never a code for a weaker login.
  const below = belowMinimum(user.acr, requiredAcr(request.plan?.minimumAcr, client.config.minimum_acr));
  if (below !== undefined)
    return writeAuthorizationResponse(
      res,
      pages,
      request,
      { error: "unmet_authentication_requirements", error_description: below, iss: infra.issuer },
      page,
    );
  const extra = await planClaims(request.plan, user, infra.channels, chosenChannel);
  if (extra.ok === "choose") {
    // prompt=none shows no page (OIDC Core 3.1.2.1): the choice is an interaction the client must ask for.
    if (request.prompt.includes("none"))
      return writeAuthorizationResponse(
        res,
        pages,
        request,
        {
          error: "interaction_required",
          error_description: "the user administers several channels and must choose one on a page",
          iss: infra.issuer,
        },
        page,
      );
    return offerChannels({ infra, policy }, req, res, request, source, extra.channels);
  }
  if (!extra.ok)
    return writeAuthorizationResponse(
      res,
      pages,
      request,
      { error: "access_denied", error_description: extra.description, iss: infra.issuer },
      page,
    );
  const contributed = byExtension
    ? { accessTokenClaims: {} }
    : await extensionContributions(infra.extensions, { request, sub: user.sub, policy });
  if (contributed.refuse !== undefined)
    return writeAuthorizationResponse(
      res,
      pages,
      request,
      { error: "access_denied", error_description: contributed.refuse, iss: infra.issuer },
      page,
    );
  const idTokenClaims = byExtension ? { ...extra.claims, ...byExtension.idTokenClaims } : extra.claims;
  const headers: Record<string, string> = {};
  const auth: Authentication & { sid?: string } =
    byExtension && "login" in source ? source.login : await sessionOf(infra, req, request, source, headers);
  const grant: AuthorizationCodeGrant = {
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    nonce: request.nonce,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    sub: auth.sub,
    authTime: auth.authTime,
    amr: auth.amr,
    acr: auth.acr,
  };
  // Optional members only when present (set one by one: this is half of every SSO code flow).
  if (auth.sid !== undefined) grant.sid = auth.sid;
  // The audit trail's tie from the token back to the login (token.issued login_id).
  if (auth.loginId !== undefined) grant.loginId = auth.loginId;
  // The token request must repeat login_type only where the login type says so (Mfa, MyVendor, eID).
  if (request.plan?.repeatLoginTypeAtToken) grant.loginType = request.loginType;
  if (hasMembers(idTokenClaims)) grant.idTokenClaims = idTokenClaims;
  // RFC 9449 §10: the code is bound to the key the authorize request named.
  if (request.dpopJkt !== undefined) grant.dpopJkt = request.dpopJkt;
  if (hasMembers(contributed.accessTokenClaims)) grant.accessTokenClaims = contributed.accessTokenClaims;
  const requested = request.claims && releasableClaims(request.claims, client, policy.scopes);
  if (requested !== undefined) grant.requestedClaims = requested;
  const code = await infra.codes.issue(grant, client.lifetimes.authorizationCode);
  writeAuthorizationResponse(res, pages, request, { code, login_type: request.loginType, iss: infra.issuer }, page, headers);
}

function hasMembers(record: Record<string, unknown>): boolean {
  for (const _ in record) return true;
  return false;
}

/**
 * The authentication the code stands for, with its session: the existing one (touched for this
 * client), a new one after a login, or none for a login type that keeps no SSO state.
 */
async function sessionOf(
  infra: Infra,
  req: IncomingMessage,
  request: AuthorizationRequest,
  source: SessionSource,
  headers: Record<string, string>,
): Promise<Authentication & { sid?: string }> {
  if ("login" in source && request.plan?.sso.create === false) return source.login;
  const { cookie, session: started } =
    "existing" in source ? { cookie: source.cookie, session: source.existing } : await startSession(infra, req, source.login);
  if (!("existing" in source)) headers["Set-Cookie"] = infra.cookies.set(SESSION_COOKIE, cookie, { sameSiteNone: request.framed });
  return infra.sessions.touch(cookie, started, request.clientId);
}

/**
 * How the response page of this request is shown: its language, its framing for iframe_authz, and — for
 * /eID/callback, where the browser arrives by the upstream's redirect — as a page rather than one more
 * redirect (ResponsePage.leaveRedirectChain).
 */
export function responsePage(
  req: IncomingMessage,
  request: AuthorizationRequest,
  client: Client,
  leaveRedirectChain = false,
): ResponsePage {
  return {
    lang: request.lang,
    acceptLanguage: req.headers["accept-language"],
    frameAncestors: request.framed ? clientFrameAncestors(client) : undefined,
    ...(leaveRedirectChain && { leaveRedirectChain: true }),
  };
}
