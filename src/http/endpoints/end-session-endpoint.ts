import type { ServerResponse } from "node:http";
import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import { invalidRequest } from "../../errors/oauth-error.ts";
import type { SsoSession } from "../../sessions/sso-sessions.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { signOut } from "../../sessions/sign-out.ts";
import { LogoutConfirmations, type LogoutOutcome } from "../../sessions/logout-confirmations.ts";
import { IdTokenHintVerifier, type IdTokenHint } from "../../oauth/id-token-hint.ts";
import { redirectTargetSource, writePage } from "../../views/page-headers.ts";
import { resolveLang, type Lang } from "../../i18n/lang.ts";
import type { ViewEngine } from "../../views/view-engine.ts";
import { SECURITY_HEADERS } from "../../http-kit/security-headers.ts";
import { answerWithErrorPage, type BrowserPages } from "../../views/browser-pages.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { steps, type Partway } from "../../http-kit/steps.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { paths } from "../../http-kit/paths.ts";
import { collectParams, readFormBody } from "../../http-kit/params.ts";
import { appendQuery } from "../../http-kit/append-query.ts";
import { requestIdOf } from "../../http-kit/write-response.ts";

/** What both routes start a request with; their steps add the rest. */
interface EndSessionStart {
  ex: Exchange;
  /** The policy snapshot this request reads, once. */
  policy: PolicySnapshot;
}

/** The hidden CSRF field of every form (views/partials/csrf-field.hbs); the confirm page also posts confirm=yes|no. */
export const CSRF_FIELD = "csrf";

const BARE_HEADERS = ["Cache-Control", "no-store", "Pragma", "no-cache", ...Object.entries(SECURITY_HEADERS).flat()];

/**
 * GET|POST /connect/endsession (SPEC "End session", OIDC RP-Initiated Logout 1.0) and the POST of its
 * confirmation page, /connect/endsession/confirm. docs/decisions.md ("End session") has the rules:
 *
 * - id_token_hint: an ID token we signed for a registered client, expiry not checked; invalid → 400 page.
 * - post_logout_redirect_uri: used only with a valid hint and when registered for the hint's client
 *   (SPEC: "usable only when"). With a valid hint, one that is not registered makes the request invalid:
 *   a 400 page says so, nothing is ended, and a link signs out without it (RP-Initiated Logout §3, and
 *   what the certification's logout plan checks). Without a hint it is not used — the user is asked, as
 *   if it had not been sent — and a warning says why. state is appended to it (and only to it), exactly as received.
 * - A valid hint for the browser's own session (same sub, same sid when the hint has one) logs out at
 *   once. Without a hint, or with a hint for someone or some session else, the user confirms on a page
 *   whose form carries a single-use CSRF token bound to the session cookie. Without a session there is
 *   nothing to log out: the browser goes on at once (to the allowed redirect, or the logged-out page).
 *   "Stay signed in" ends nothing: a link back to the allowed redirect, else a 204 (the page stays).
 * - Logout ends the SSO session (single sign-out: back-channel logout tokens in the background,
 *   front-channel iframes on the logged-out page), clears the cookie, then redirects (303) or shows
 *   the logged-out page; with front-channel iframes the page continues to the redirect by itself. A
 *   browser whose session an operator ended (src/sessions/sign-out-user.ts) has no session left to end
 *   but is owed that session's front-channel iframes: it gets them here.
 */
export function endSessionEndpoints(infra: Infra, views: ViewEngine, pages: BrowserPages): ProtocolRoute[] {
  const limits = { maxParameterLength: infra.settings.security.max_parameter_length };
  const hints = new IdTokenHintVerifier(() => infra.keys.keys, infra.issuer);
  const confirmations = new LogoutConfirmations(infra.store);

  /** Ends the browser's session (if any), then redirects or shows the logged-out page. */
  async function finish(
    ex: Exchange,
    policy: PolicySnapshot,
    cookie: string | undefined,
    outcome: LogoutOutcome,
    lang: Lang,
  ): Promise<void> {
    const { frontChannelUrls } = await signOut(infra, cookie, { reason: "logout", frontChannel: policy.clients });
    if (cookie !== undefined) ex.res.setHeader("Set-Cookie", infra.cookies.clear(SESSION_COOKIE));
    if (outcome.redirect !== undefined && frontChannelUrls.length === 0) return writeRedirect(ex.res, outcome.redirect);
    pages.loggedOut(ex.res, { frontChannelUrls, continueTo: outcome.redirect }, lang);
  }

  /** The page for a hint's client asking for a return address it did not register: an error, and a way to sign out all the same. */
  function refuseUnregisteredRedirect(ex: Exchange, lang: Lang): void {
    const data = {
      error: "invalid_request",
      descriptionKey: "error.unregistered_post_logout_redirect_uri",
      actionUrl: paths.endSession,
      actionKey: "logout-confirm.sign_out_here",
    };
    writePage(ex.res, 400, views.render("error", data, lang));
  }

  const endSession = steps<EndSessionStart>()
    // The parameters: the query of a GET, the form body of a POST, each at most once.
    .step((ctx) => {
      const { req } = ctx.ex;
      const params =
        req.method === "POST" ? readFormBody(ctx.ex, limits) : collectParams(new URL(req.url ?? "/", "http://x").searchParams, limits);
      return { params, lang: resolveLang(params.get("lang") ?? params.get("ui_locales"), req.headers["accept-language"]) };
    })
    // id_token_hint, when given, is an ID token we signed for a registered client; its expiry does not matter.
    .step(async (ctx) => {
      const token = ctx.params.get("id_token_hint");
      return { hint: token === undefined ? undefined : await hints.verify(token, ctx.policy.clients) };
    })
    // client_id, when given, is a registered client, and the hint's client when there is a hint. The
    // client that asked is the hint's, or client_id's.
    .step((ctx) => {
      const clientId = ctx.params.get("client_id");
      if (clientId !== undefined) {
        if (ctx.hint && ctx.hint.client.id !== clientId) throw invalidRequest("client_id is not the client of id_token_hint");
        if (!ctx.policy.clients.get(clientId)) throw invalidRequest("client_id is not a registered client");
      }
      return { clientId: ctx.hint?.client.id ?? clientId };
    })
    // post_logout_redirect_uri is usable with a valid hint, registered for its client. A hint's client
    // sending one it did not register is an invalid request; without a hint it is not used (never
    // redirected to) and the logout goes on without it. state rides on it only.
    .step((ctx) => {
      const uri = ctx.params.get("post_logout_redirect_uri");
      if (uri === undefined) return { redirect: undefined };
      if (ctx.hint && !ctx.hint.client.postLogoutRedirectUris.has(uri)) {
        infra.logger.warn(
          { event: "post_logout_redirect_uri_refused", reqId: ctx.ex.reqId, client: ctx.clientId },
          "end session: post_logout_redirect_uri is not registered for the id_token_hint's client",
        );
        return refuseUnregisteredRedirect(ctx.ex, ctx.lang);
      }
      if (!ctx.hint) {
        infra.logger.warn(
          { event: "post_logout_redirect_uri_ignored", reqId: ctx.ex.reqId, client: ctx.clientId, reason: "no id_token_hint" },
          "end session: post_logout_redirect_uri not used",
        );
        return { redirect: undefined };
      }
      const state = ctx.params.get("state");
      return { redirect: state === undefined ? uri : appendQuery(uri, [["state", state]]) };
    })
    // The browser's session: none, or a hint for this very session, means the logout happens now.
    .step(async (ctx) => {
      const cookie = infra.cookies.read(ctx.ex.req, SESSION_COOKIE);
      const session = await infra.sessions.find(cookie);
      // (A session is only ever found by a cookie: the cookie test is for the type.)
      if (session && cookie !== undefined && !(ctx.hint && isHintFor(ctx.hint, session))) return { cookie };
      await finish(ctx.ex, ctx.policy, cookie, { redirect: ctx.redirect, clientId: ctx.clientId }, ctx.lang);
    })
    // Otherwise the user confirms, on a page whose form carries a CSRF token bound to this browser.
    .step(async (ctx) => {
      const outcome: LogoutOutcome = { redirect: ctx.redirect, clientId: ctx.clientId, lang: ctx.lang };
      const csrf = await confirmations.create(ctx.cookie, outcome);
      const clientName = ctx.clientId === undefined ? undefined : ctx.policy.clients.get(ctx.clientId)?.name;
      // With an allowed redirect, "Stay signed in" is a link back to the client.
      const data = { csrf, action: paths.endSessionConfirm, clientName, cancelUrl: ctx.redirect };
      // Confirming may end in a 303 to the client's post-logout URI, and CSP form-action governs that redirect too.
      writePage(ctx.ex.res, 200, views.render("logout-confirm", data, ctx.lang), {
        formAction: [ctx.redirect ? redirectTargetSource(ctx.redirect) : "'self'"],
      });
    });

  const confirm = steps<EndSessionStart>()
    // The confirmation form's body.
    .step((ctx) => ({ params: readFormBody(ctx.ex, limits) }))
    // Its CSRF token is the single-use one this browser's session was shown.
    .step(async (ctx) => {
      const cookie = infra.cookies.read(ctx.ex.req, SESSION_COOKIE);
      return { cookie, outcome: await confirmations.take(ctx.params.get(CSRF_FIELD), cookie) };
    })
    // "Stay signed in": nothing ends. Back to the client when it gave an allowed redirect, else the
    // browser stays on the page (204). "Log out": the session ends.
    .step((ctx) => {
      const { outcome } = ctx;
      const choice = ctx.params.get("confirm");
      if (choice === "no")
        return outcome?.redirect !== undefined ? writeRedirect(ctx.ex.res, outcome.redirect) : writeNoContent(ctx.ex.res);
      if (!outcome) throw invalidRequest("the logout confirmation is not valid or has expired; start the logout again");
      if (choice !== "yes") throw invalidRequest("confirm must be yes or no");
      return finish(ctx.ex, ctx.policy, ctx.cookie, outcome, langOf(outcome.lang, ctx.ex));
    });

  function fail(ex: Exchange, err: unknown, lang: string | undefined): void {
    answerWithErrorPage(pages, infra.logger, ex.req, ex.res, err, ex, lang);
  }

  return [
    {
      path: paths.endSession,
      methods: ["GET", "POST"],
      readsBody: true,
      handle: async (ex) => {
        const ctx: Partway<typeof endSession> = { ex, policy: takeScope(infra).policy };
        await endSession.run(ctx).catch((err: unknown) => fail(ex, err, ctx.lang ?? ctx.params?.get("lang")));
      },
      fail: (ex, err) => fail(ex, err, undefined),
    },
    {
      path: paths.endSessionConfirm,
      methods: ["POST"],
      readsBody: true,
      handle: async (ex) => {
        const ctx: Partway<typeof confirm> = { ex, policy: takeScope(infra).policy };
        await confirm.run(ctx).catch((err: unknown) => fail(ex, err, ctx.outcome?.lang));
      },
      fail: (ex, err) => fail(ex, err, undefined),
    },
  ];
}

/**
 * A hint speaks for the browser's session when it names the same user and, if it carries a session id,
 * the same session. A hint for another user (or an earlier session) must not end this one unasked.
 */
function isHintFor(hint: IdTokenHint, session: SsoSession): boolean {
  return hint.sub === session.sub && (hint.sid === undefined || hint.sid === session.sid);
}

function langOf(lang: string | undefined, ex: Exchange): Lang {
  return resolveLang(lang, ex.req.headers["accept-language"]);
}

function writeNoContent(res: ServerResponse): void {
  res.writeHead(204, BARE_HEADERS.concat("X-Request-Id", requestIdOf(res)));
  res.end();
}

function writeRedirect(res: ServerResponse, location: string): void {
  res.writeHead(303, BARE_HEADERS.concat("Location", location, "Content-Length", "0", "X-Request-Id", requestIdOf(res)));
  res.end();
}
