import type { Provider } from "../../provider.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { OAuthError } from "../../oauth/oauth-error.ts";
import type { AuthorizationRequest, ResponseMode } from "../../oauth/authorization-request.ts";
import type { SsoSession } from "../../sessions/sso-sessions.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { signOut } from "../../sessions/sign-out.ts";
import { clientAddress } from "../../security/client-address.ts";
import { redirectToInteraction } from "../../runtime/interaction-cookie.ts";
import { toOAuthError } from "../write-error.ts";
import { IdTokenHintVerifier } from "../../tokens/id-token-hint.ts";
import type { Exchange } from "../exchange.ts";
import type { ProtocolRoute } from "../protocol-route.ts";
import type { BrowserPages } from "../browser-pages.ts";
import { runSteps, type Step } from "../steps.ts";
import { paths } from "../paths.ts";
import { checkAuthorizeRequest, checkClientAndRedirect, readAuthorizeParams, redirectable, stateToReturn, type RawAuthorizeParams } from "./authorize-params.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { completeAuthorization } from "./complete-authorization.ts";
import { clientFrameAncestors } from "./client-frame-ancestors.ts";
import { silentLogin } from "./silent-login.ts";
import { eidLogins, takeLoginType, type EidLogin } from "./eid-logins.ts";

interface AuthorizeContext {
  ex: Exchange;
  /** Served at /connect/iframe_authz: even errors leave the iframe. */
  framed: boolean;
  raw?: RawAuthorizeParams;
  client?: Client;
  /** Known once client and redirect_uri are trusted: from then on errors go to the client. */
  redirect?: { redirectUri: string; responseMode: ResponseMode };
  request?: AuthorizationRequest;
  sessionCookie?: string;
  session?: SsoSession;
  /** /eID/authorize: the upstream its plan brokers the login to. */
  eid?: EidLogin;
}

/** One address of the authorize endpoint and what it changes. */
interface Variant {
  path: string;
  /** Served at /connect/iframe_authz: the login runs in an iframe and finishes in the top window. */
  framed: boolean;
  /** /Account/Login adds prompt=login. */
  forcePrompt?: string;
  /** /eID/authorize: the login is brokered to the upstream eID provider of the eID login type. */
  eid?: boolean;
}

const VARIANTS: readonly Variant[] = [
  { path: paths.authorize, framed: false },
  { path: paths.accountLogin, framed: false, forcePrompt: "login" },
  { path: paths.iframeAuthorize, framed: true },
  { path: paths.eidAuthorize, framed: false, eid: true },
];

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;

/**
 * GET|POST /connect/authorize (OIDC Core §3.1.2), and its SPEC variants: /Account/Login (as
 * prompt=login), /connect/iframe_authz (the login runs in an iframe and finishes in the top window)
 * and /eID/authorize (the same parameters, login_type optional; the login happens at the upstream eID
 * provider, and only an eID account's session is used for SSO). Served on node:http: with an SSO
 * session this is the hot half of the code flow.
 */
export function authorizeEndpoints(provider: Provider, pages: BrowserPages): ProtocolRoute[] {
  const security = provider.config.provider.security;
  const trustProxy = provider.config.provider.listen.trust_proxy;
  const hints = new IdTokenHintVerifier(() => provider.keys.keys, provider.issuer, provider.clients);
  const eid = eidLogins(provider);
  const steps = ({ framed, forcePrompt, eid: brokered }: Variant): Step<AuthorizeContext>[] => [
    // The parameters: the query of a GET, the form body of a POST.
    (ctx) => {
      const { req, body } = ctx.ex;
      if (req.method === "POST" && !FORM_TYPE.test(req.headers["content-type"] ?? "")) {
        throw new OAuthError(400, "invalid_request", "the request body must be application/x-www-form-urlencoded");
      }
      const url = req.url ?? "";
      const search = new URLSearchParams(req.method === "POST" ? (body?.toString("utf8") ?? "") : url.slice(url.indexOf("?") + 1 || url.length));
      ctx.raw = readAuthorizeParams(search, security.max_parameter_length);
    },
    // The client and its exact redirect_uri: until both are trusted, errors are a page, not a redirect.
    (ctx) => {
      const { client, redirectUri, responseMode } = checkClientAndRedirect(provider, ctx.raw!);
      ctx.client = client;
      ctx.redirect = { redirectUri, responseMode };
    },
    // Everything else about the request; errors from here on go back to the client. /eID/authorize
    // plans its login_type itself (eid-logins.ts): the upstream, and the login_type the code carries.
    (ctx) => {
      const { raw, loginType } = brokered ? takeLoginType(ctx.raw!) : { raw: ctx.raw!, loginType: undefined };
      ctx.request = checkAuthorizeRequest(ctx.client!, raw, { ...ctx.redirect!, framed, forcePrompt });
      if (brokered) ctx.eid = eid.plan(ctx.client!, raw, ctx.request, loginType);
    },
    // id_token_hint: an ID token we signed (expired or not) naming the user the client expects.
    async (ctx) => {
      const hint = ctx.raw!.values.get("id_token_hint");
      if (hint === undefined) return;
      try {
        ctx.request!.hintSub = (await hints.verify(hint)).sub;
      } catch (err) {
        throw err instanceof OAuthError ? redirectable(err) : err;
      }
    },
    // The browser's SSO session, if any; prompt=force_login logs the user out first (single sign-out:
    // the session's clients get back-channel logout tokens; there is no page here for front-channel iframes).
    async (ctx) => {
      ctx.sessionCookie = provider.cookies.read(ctx.ex.req, SESSION_COOKIE);
      ctx.session = await provider.sessions.find(ctx.sessionCookie);
      // A session of a user removed or disabled since is ended like a logout; so is one prompt=force_login ends.
      if (ctx.session && (ctx.request!.prompt.includes("force_login") || !provider.users.isActive(ctx.session.sub))) {
        await signOut(provider, ctx.sessionCookie);
        ctx.session = undefined;
        ctx.ex.res.setHeader("Set-Cookie", provider.cookies.clear(SESSION_COOKIE));
      }
    },
    // The trusted app's embedded web view: a valid silent-login token logs the device's user in, no page
    // (an employee login: never at /eID/authorize).
    async (ctx) => {
      if (brokered) return;
      const login = await silentLogin(provider, ctx.raw!, ctx.request!);
      if (login) return completeAuthorization(provider, pages, ctx.ex.req, ctx.ex.res, ctx.request!, { login });
    },
    // A session that satisfies the request gets a code straight away (SSO); prompt=none may go no further.
    async (ctx) => {
      const request = ctx.request!;
      const reason = loginReason(request, ctx.session, provider.clock()) ?? (ctx.eid && eidSessionReason(ctx.eid, ctx.session!));
      if (reason === undefined) return completeAuthorization(provider, pages, ctx.ex.req, ctx.ex.res, request, { existing: ctx.session!, cookie: ctx.sessionCookie! });
      if (request.prompt.includes("none")) {
        throw new OAuthError(400, "login_required", reason, { allowRedirect: true });
      }
    },
    // Otherwise the user must act, within the address's budget: at the upstream eID provider, or in an
    // interaction that runs the login flow.
    async (ctx) => {
      const request = ctx.request!;
      if (!(await provider.loginRequests.tryAttempt(clientAddress(ctx.ex.req, trustProxy)))) {
        throw new OAuthError(429, "temporarily_unavailable", "too many login requests from this address; try again later", { allowRedirect: true });
      }
      if (ctx.eid) return eid.begin(ctx.ex.res, request, ctx.eid);
      const flow = provider.flows.get("default")!;
      const signedInAs = ctx.session && request.prompt.includes("login") ? ctx.session.sub : undefined;
      const { interaction, browserCookie } = await provider.interactions.create({ kind: "login", request, flowId: flow.id, flowHash: flow.hash, signedInAs });
      redirectToInteraction(provider, ctx.ex.res, interaction.id, browserCookie, { sameSiteNone: request.framed });
    },
  ];

  const route = (variant: Variant): ProtocolRoute => {
    const { path, framed } = variant;
    const table = steps(variant);
    return {
      path,
      methods: ["GET", "POST"],
      readsBody: true,
      handle: async (ex) => {
        const ctx: AuthorizeContext = { ex, framed };
        try {
          await runSteps(ctx, table);
        } catch (err) {
          answerError(provider, pages, ctx, err);
        }
      },
      fail: (ex, err) => answerError(provider, pages, { ex, framed }, err),
    };
  };
  return VARIANTS.map(route);
}

/** Why the user must log in for this request, or undefined when the session will do. */
function loginReason(request: AuthorizationRequest, session: SsoSession | undefined, now: number): string | undefined {
  if (!session) return "the user is not logged in";
  if (request.prompt.includes("login")) return "prompt=login asks for a new login";
  if (request.hintSub !== undefined && request.hintSub !== session.sub) return "the logged-in user is not the one id_token_hint names";
  if (request.maxAge !== undefined && now / 1000 - session.authTime > request.maxAge) return "the login is older than max_age";
  return undefined;
}

/** At /eID/authorize only an eID account of the login's upstream is signed in for SSO (and only where its login type uses SSO). */
function eidSessionReason(eid: EidLogin, session: SsoSession): string | undefined {
  if (!eid.sso) return "this eID login type does not use single sign-on";
  return session.sub.startsWith(eid.subPrefix) ? undefined : "the signed-in user is not an eID account";
}

/** Errors go back to the client once its redirect_uri is trusted (with state and iss); before that, a page. */
function answerError(provider: Provider, pages: BrowserPages, ctx: AuthorizeContext, err: unknown): void {
  const { req, res } = ctx.ex;
  const error = toOAuthError(err, provider.logger, ctx.ex);
  if (res.headersSent) return void res.end();
  if (error.allowRedirect && ctx.redirect) {
    const request = { ...ctx.redirect, state: stateToReturn(ctx.raw) };
    const page = { lang: ctx.raw?.values.get("lang"), acceptLanguage: req.headers["accept-language"], frameAncestors: ctx.framed ? clientFrameAncestors(ctx.client!) : undefined };
    return writeAuthorizationResponse(res, pages, request, { error: error.error, error_description: error.description, iss: provider.issuer }, page);
  }
  pages.oauthError(req, res, error, ctx.raw?.values.get("lang"));
}
