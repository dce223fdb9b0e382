import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { OAuthError, oauthError } from "../../errors/oauth-error.ts";
import type { ResponseMode } from "../../oauth/authorization-request.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { signOut } from "../../sessions/sign-out.ts";
import { clientAddress } from "../../security/client-address.ts";
import { toOAuthError } from "../../http-kit/write-error.ts";
import { IdTokenHintVerifier } from "../../oauth/id-token-hint.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import type { BrowserPages } from "../../views/browser-pages.ts";
import { steps, type Partway } from "../../http-kit/steps.ts";
import { paths } from "../../http-kit/paths.ts";
import {
  checkAuthorizeRequest,
  checkClientAndRedirect,
  readAuthorizeParams,
  redirectable,
  stateToReturn,
  type RawAuthorizeParams,
} from "./authorize-params.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { completeAuthorization } from "./complete-authorization.ts";
import { clientFrameAncestors } from "./client-frame-ancestors.ts";
import { silentLogin, silentLoginServes } from "./silent-login.ts";
import { SILENT_LOGIN_PARAMETER } from "../../trusted-app/silent-login-token.ts";
import { planAuthorization } from "./login-plan-step.ts";
import { freshLoginReason, loginNeed, startLogin } from "./start-login.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { eidLogins } from "./eid-logins.ts";
import { answerOwedFrontChannel } from "./owed-front-channel.ts";
import { carriedRequest } from "./pushed-request-step.ts";
import { requiresPushedRequests } from "../../oauth/requires-pushed-requests.ts";

/** What a request starts with; the steps add the rest (the parameters, the client, the request, the session, the plan). */
interface AuthorizeStart {
  ex: Exchange;
  /** The policy this request runs on, read once: a reload in between changes nothing for it. */
  policy: PolicySnapshot;
  /** Served at /connect/iframe_authz: even errors leave the iframe. */
  framed: boolean;
}

/** What an error's answer may use, whichever step failed: once the client and its redirect_uri are trusted, errors go to the client. */
type AuthorizeErrorContext = AuthorizeStart & {
  raw?: RawAuthorizeParams;
  client?: Client;
  redirect?: { redirectUri: string; responseMode: ResponseMode };
};

/** One address of the authorize endpoint and what it changes. */
interface Variant {
  path: string;
  /** Served at /connect/iframe_authz: the login runs in an iframe and finishes in the top window. */
  framed: boolean;
  /** /Account/Login adds prompt=login. */
  forcePrompt?: string;
  /** /eID/authorize: login_type may be omitted (it is eID), and the login is brokered to the upstream eID provider. */
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
 * provider, and only an eID login's session is used for SSO). Served on node:http: with an SSO
 * session this is the hot half of the code flow.
 */
export function authorizeEndpoints(infra: Infra, pages: BrowserPages): ProtocolRoute[] {
  const security = infra.settings.security;
  const trustProxy = infra.settings.listen.trust_proxy;
  const hints = new IdTokenHintVerifier(() => infra.keys.keys, infra.issuer);
  const eid = eidLogins(infra);
  const stepsOf = ({ framed, forcePrompt, eid: brokered }: Variant) =>
    steps<AuthorizeStart>()
      // The parameters: the query of a GET, the form body of a POST.
      .step((ctx) => {
        const { req, body } = ctx.ex;
        if (req.method === "POST" && !FORM_TYPE.test(req.headers["content-type"] ?? "")) {
          throw oauthError("invalid_request", "the request body must be application/x-www-form-urlencoded");
        }
        const url = req.url ?? "";
        const search = new URLSearchParams(
          req.method === "POST" ? (body?.toString("utf8") ?? "") : url.slice(url.indexOf("?") + 1 || url.length),
        );
        return { raw: readAuthorizeParams(search, security.max_parameter_length) };
      })
      // A request_uri from the pushed authorization request endpoint (RFC 9126): the pushed parameters are the request.
      .step((ctx) => carriedRequest(infra.pushedRequests, ctx.raw))
      // The client and its exact redirect_uri: until both are trusted, errors are a page, not a redirect.
      .step((ctx) => {
        const { client, redirectUri, responseMode } = checkClientAndRedirect(ctx.policy, ctx.raw);
        return { client, redirect: { redirectUri, responseMode } };
      })
      // RFC 9126 §5 and §6: a client (or a provider) that requires pushed requests gets no login from any other.
      .step((ctx) => {
        if (!ctx.pushed && requiresPushedRequests(ctx.client, infra.settings))
          throw oauthError("invalid_request", "this client must push its authorization request (pushed_authorization_request_endpoint)", {
            allowRedirect: true,
          });
      })
      // Everything else about the request; errors from here on go back to the client.
      .step((ctx) => {
        const request = checkAuthorizeRequest(ctx.client, ctx.raw, { ...ctx.redirect, framed, forcePrompt });
        if (ctx.pushed) request.pushed = true;
        return { request };
      })
      // id_token_hint: an ID token we signed (expired or not) naming the user the client expects.
      // Steps that are asynchronous only sometimes return a promise only then: the runner awaits nothing else.
      .step((ctx) => {
        const hint = ctx.raw.values.get("id_token_hint");
        if (hint === undefined) return;
        return hints.verify(hint, ctx.policy.clients).then(
          (verified) => {
            ctx.request.hintSub = verified.sub;
          },
          (err: unknown) => {
            throw err instanceof OAuthError ? redirectable(err) : err;
          },
        );
      })
      // The browser's SSO session, if any; prompt=force_login logs the user out first (single sign-out:
      // the session's clients get back-channel logout tokens; there is no page here for front-channel iframes).
      .step(async (ctx) => {
        const sessionCookie = infra.cookies.read(ctx.ex.req, SESSION_COOKIE);
        const session = await infra.sessions.find(sessionCookie);
        // A session of a user removed or disabled since is ended like a logout; so is one prompt=force_login ends.
        const active = session !== undefined && (await ctx.policy.users.isActive(session.sub));
        if (session && (ctx.request.prompt.includes("force_login") || !active)) {
          await signOut(infra, sessionCookie, { reason: active ? "force_login" : "user_inactive" });
          ctx.ex.res.setHeader("Set-Cookie", infra.cookies.clear(SESSION_COOKIE));
          return { sessionCookie, session: undefined };
        }
        // A cookie that names no session may be owed the front-channel logout of one an operator ended.
        if (!session && (await answerOwedFrontChannel(infra, ctx.policy, pages, ctx.ex, ctx.request, sessionCookie))) return;
        return { sessionCookie, session };
      })
      // The login plan (src/login-policy): login type, flow, methods, whether the session may serve, what
      // the tokens carry; a MyVendor signature is checked here, before anything is shown.
      .step((ctx) => {
        const { request, session } = ctx;
        // A request that needs a whole new login is planned without the session (its factors do not count);
        // why, is read once, for the plan and the need alike.
        const freshLogin = freshLoginReason(request, session, infra.clock());
        const counted = freshLogin === undefined ? session : undefined;
        // A pushed request is planned as it was checked when pushed: the address does not choose its login type for it.
        const plan = planAuthorization(
          ctx.policy.login,
          ctx.client,
          ctx.raw,
          request,
          brokered && !ctx.pushed ? "eid" : "authorize",
          counted,
        );
        if (brokered && ctx.pushed && plan.flow !== "eid")
          throw oauthError("invalid_request", "a pushed request at /eID/authorize must ask for the eID login", { allowRedirect: true });
        request.plan = plan;
        if (plan.loginType !== undefined) request.loginType = plan.loginType;
        // Login types without SSO read no session state: as if the browser had none.
        return { plan, freshLogin, session: plan.sso.use ? session : undefined };
      })
      // The trusted app's embedded web view: a valid silent-login token logs the device's user in, no page
      // (a one-factor login: it serves one-factor plans only).
      .step((ctx) => {
        const { plan, request } = ctx;
        const token = ctx.raw.values.get(SILENT_LOGIN_PARAMETER);
        if (brokered || !silentLoginServes(plan) || token === undefined) return;
        return silentLogin(infra, token, request, { gps: plan.claims.gps, faceid: plan.claims.faceid }).then((login) =>
          login ? completeAuthorization({ infra, policy: ctx.policy }, pages, ctx.ex.req, ctx.ex.res, request, { login }) : undefined,
        );
      })
      // A session that satisfies the request gets a code straight away (SSO); prompt=none may go no further:
      // login_required without a usable session, interaction_required when the session needs a step-up.
      .step((ctx) => {
        const { request, session, sessionCookie } = ctx;
        const need = loginNeed(request, session, ctx.freshLogin);
        if (need.kind === "none") {
          // loginNeed answers "none" only for a session, and a session is only ever found by its cookie.
          if (!session || sessionCookie === undefined) throw new Error("the request needs no login, yet there is no session");
          return completeAuthorization({ infra, policy: ctx.policy }, pages, ctx.ex.req, ctx.ex.res, request, {
            existing: session,
            cookie: sessionCookie,
          });
        }
        if (request.prompt.includes("none"))
          throw oauthError(need.kind === "step_up" ? "interaction_required" : "login_required", need.reason, { allowRedirect: true });
        return { need };
      })
      // Otherwise the user must act, within the address's budget, in an interaction that runs the plan's
      // flow: the eID flow, which sends the browser to the upstream eID provider, or a flow of pages.
      .step(async (ctx) => {
        if (!(await infra.loginRequests.tryAttempt(clientAddress(ctx.ex.req, trustProxy)))) {
          throw oauthError("temporarily_unavailable", "too many login requests from this address; try again later", {
            status: 429,
            allowRedirect: true,
          });
        }
        if (ctx.plan.flow === "eid") return eid.begin(ctx.ex.res, ctx.policy, ctx.request);
        await startLogin(infra, ctx.policy, ctx.ex.res, ctx.request, ctx.need, ctx.session);
      });

  const route = (variant: Variant): ProtocolRoute => {
    const { path, framed } = variant;
    const table = stepsOf(variant);
    return {
      path,
      methods: ["GET", "POST"],
      readsBody: true,
      handle: async (ex) => {
        const ctx: Partway<typeof table> = { ex, framed, policy: takeScope(infra).policy };
        try {
          await table.run(ctx);
        } catch (err) {
          answerError(infra, pages, ctx, err);
        }
      },
      fail: (ex, err) => answerError(infra, pages, { ex, framed, policy: takeScope(infra).policy }, err),
    };
  };
  return VARIANTS.map(route);
}

/** Errors go back to the client once its redirect_uri is trusted (with state and iss); before that, a page. */
function answerError(infra: Infra, pages: BrowserPages, ctx: AuthorizeErrorContext, err: unknown): void {
  const { req, res } = ctx.ex;
  const error = toOAuthError(err, infra.logger, ctx.ex);
  if (res.headersSent) return void res.end();
  if (error.allowRedirect && ctx.redirect) {
    const request = { ...ctx.redirect, state: stateToReturn(ctx.raw) };
    const page = {
      lang: ctx.raw?.values.get("lang"),
      acceptLanguage: req.headers["accept-language"],
      // (The client is known whenever its redirect is: one step trusts both.)
      frameAncestors: ctx.framed && ctx.client ? clientFrameAncestors(ctx.client) : undefined,
    };
    return writeAuthorizationResponse(
      res,
      pages,
      request,
      { error: error.error, error_description: error.description, iss: infra.issuer },
      page,
    );
  }
  pages.oauthError(req, res, error, ctx.raw?.values.get("lang"));
}
