import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { BrowserPages } from "../../views/browser-pages.ts";
import { paths } from "../../http-kit/paths.ts";
import { constantTimeEqual } from "../../crypto/constant-time-equal.ts";
import { storeKeyHash } from "../../crypto/store-key-hash.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { currentSession } from "../../sessions/current-session.ts";
import { resolveLang, type Lang } from "../../i18n/lang.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { clientAddress } from "../../security/client-address.ts";
import { writePage } from "../../views/page-headers.ts";
import type { ViewEngine } from "../../views/view-engine.ts";
import { redirectToInteraction } from "./interaction-cookie.ts";
import { seeOther } from "../../http-kit/see-other.ts";
import { enrollmentFlowId } from "../../runtime/login-flows.ts";
import { accountParams, accountUrl, type AccountParams } from "../../runtime/account-params.ts";
import { accountRows } from "../../account/account-rows.ts";
import { returnLink } from "../../account/return-link.ts";

/**
 * The signed-in user's account page (`/account`): every configured factor method with its state, what
 * is enrolled (masked), when it was set up and last used, and buttons to enroll (an enrollment flow in
 * the runtime) or remove it (after a confirmation page); sign out through the end-session endpoint, and
 * back to the application named by `client_id` (only to what that client registered). It needs the
 * browser's SSO session — without one it offers to sign in (`/account/sign-in`, the default login
 * flow) — and its forms carry a CSRF token derived from the session cookie, which a page of another
 * origin can neither read nor compute. `lang` and `client_id` travel with every link and form.
 */
export function accountRoutes(infra: Infra, views: ViewEngine, pages: BrowserPages): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: 4096, parameterLimit: 10 });

  /** Each request reads the policy snapshot once, here: its parameters and language come with it. */
  const begin = (req: Request, res: Response): AccountRequest => {
    const { policy } = takeScope(infra);
    // The page's parameters: from the query of a GET, from the form of a POST.
    const params = accountParams(req.method === "POST" ? req.body : req.query, policy.clients);
    return { req, res, policy, params, lang: resolveLang(params.lang, req.headers["accept-language"]) };
  };
  const route = (handler: (ar: AccountRequest) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    handler(begin(req, res)).catch(next);
  };
  router.get(paths.account, route(show));
  router.get(`${paths.account}/sign-in`, route(signIn));
  router.post(`${paths.account}/enroll`, form, route(enroll));
  router.get(`${paths.account}/remove`, route(confirmRemove));
  router.post(`${paths.account}/remove`, form, route(remove));

  /** Whether the signed-in `sub` may set up or remove `method` here: an enrollable method, and a directory user (an eID account signs in at its eID provider: it has no methods to manage here). */
  async function manages({ policy }: AccountRequest, sub: string, method: string): Promise<boolean> {
    const plugin = infra.methods.get(method)?.plugin;
    return (
      plugin?.manifest.machines.enrollment !== undefined &&
      plugin.account?.setUpBy === undefined &&
      (await policy.users.findBySub(sub)) !== undefined
    );
  }

  /** The session of the form's browser; without one, an error page (the forms need a signed-in user). */
  async function signedIn({ req, res, policy }: AccountRequest) {
    const session = await currentSession({ infra, policy }, req);
    if (!session) pages.error(req, res, 401, "login_required", "sign in first: open the account page again");
    return session;
  }

  /**
   * Signing in to the account page itself: the default login flow in an interaction of its own kind,
   * which ends in an SSO session and this page (no client, no code). Within the address's budget of
   * logins started, like authorize.
   */
  async function signIn({ req, res, policy, params, lang }: AccountRequest): Promise<void> {
    if (!(await infra.loginRequests.tryAttempt(clientAddress(req, infra.settings.listen.trust_proxy)))) {
      return pages.error(req, res, 429, "temporarily_unavailable", "too many logins from this address; try again later");
    }
    const flow = policy.flows.get("default")!;
    const { interaction, browserCookie } = await infra.interactions.create({
      kind: "account",
      lang,
      back: params,
      flowId: flow.id,
      flowHash: flow.hash,
    });
    redirectToInteraction(infra, res, interaction.id, browserCookie);
  }

  /** The CSRF token of the account forms: a hash of the session cookie under its own label. */
  const csrfOf = (req: Request) => storeKeyHash(`account-csrf:${infra.cookies.read(req, SESSION_COOKIE) ?? ""}`);
  const csrfMatches = (req: Request) => typeof req.body?.csrf === "string" && constantTimeEqual(req.body.csrf, csrfOf(req));

  /** Links and hidden fields every account page shares. */
  function frame({ policy, params }: AccountRequest) {
    const client = params.clientId === undefined ? undefined : policy.clients.get(params.clientId);
    const back = client && returnLink(client);
    return {
      lang: params.lang,
      clientId: params.clientId,
      backUrl: back,
      backName: back === undefined ? undefined : client!.name,
      accountUrl: accountUrl(params),
      signOutUrl: accountUrl({ lang: params.lang }, {}, paths.endSession),
    };
  }

  async function show(ar: AccountRequest): Promise<void> {
    const { req, res, policy, params, lang } = ar;
    const session = await currentSession({ infra, policy }, req);
    if (!session)
      return writePage(
        res,
        200,
        views.render("account", { ...frame(ar), signInUrl: accountUrl(params, {}, `${paths.account}/sign-in`), methods: [] }, lang),
      );
    const user = await policy.users.findBySub(session.sub);
    // An eID account (no employee record) signs in at its eID provider: its name, and no methods to manage.
    if (!user)
      return writePage(
        res,
        200,
        views.render("account", { ...frame(ar), userName: await eidAccountName(session.sub), eidAccount: true, methods: [] }, lang),
      );
    const notice =
      typeof req.query.enrolled === "string"
        ? "account.enrolled_notice"
        : typeof req.query.removed === "string"
          ? "account.removed_notice"
          : undefined;
    const html = views.render(
      "account",
      {
        ...frame(ar),
        userName: user.claims.name ?? user.username,
        csrf: csrfOf(req),
        enrollAction: `${paths.account}/enroll`,
        removeUrl: `${paths.account}/remove`,
        notice,
        methods: await accountRows(
          { methods: infra.methods, users: policy.users, enrollments: infra.enrollments },
          views,
          session.sub,
          lang,
        ),
      },
      lang,
    );
    writePage(res, 200, html);
  }

  /** The name an eID account's upstream gave at its last login, else its sub. */
  async function eidAccountName(sub: string): Promise<string> {
    const name = (await infra.eid.accounts.claims(sub))?.name;
    return typeof name === "string" && name !== "" ? name : sub;
  }

  /**
   * What an enroll or remove form asks for: the signed-in user and an enrollable method, after its CSRF
   * token; undefined once an error page has been sent.
   */
  async function methodForm(ar: AccountRequest): Promise<{ sub: string; method: string } | undefined> {
    const { req, res } = ar;
    const session = await signedIn(ar);
    if (!session) return undefined;
    const method = String(req.body?.method ?? "");
    if (!csrfMatches(req)) return void pages.error(req, res, 403, "invalid_request", "this form has expired; reload the account page");
    if (!(await manages(ar, session.sub, method)))
      return void pages.error(req, res, 400, "invalid_request", "this method cannot be set up or removed here");
    return { sub: session.sub, method };
  }

  /** Starts the method's enrollment flow for the signed-in user, in an interaction bound to this browser. */
  async function enroll(ar: AccountRequest): Promise<void> {
    const form = await methodForm(ar);
    if (!form) return;
    const flow = ar.policy.flows.get(enrollmentFlowId(form.method))!;
    const created = await infra.interactions.create({
      kind: "enrollment",
      ...form,
      lang: ar.lang,
      back: ar.params,
      flowId: flow.id,
      flowHash: flow.hash,
    });
    redirectToInteraction(infra, ar.res, created.interaction.id, created.browserCookie);
  }

  /** "Remove" on the account page: a page that asks first, whose form posts to `remove`. */
  async function confirmRemove(ar: AccountRequest): Promise<void> {
    const { req, res, lang } = ar;
    const session = await signedIn(ar);
    if (!session) return;
    const method = typeof req.query.method === "string" ? req.query.method : "";
    if (!(await manages(ar, session.sub, method)))
      return pages.error(req, res, 400, "invalid_request", "this method cannot be set up or removed here", ar.params.lang);
    const data = {
      ...frame(ar),
      csrf: csrfOf(req),
      action: `${paths.account}/remove`,
      method,
      methodName: views.translate(lang, `method.${method}.label`),
    };
    writePage(res, 200, views.render("account-remove", data, lang));
  }

  async function remove(ar: AccountRequest): Promise<void> {
    const form = await methodForm(ar);
    if (!form) return;
    if (await infra.enrollments.remove(form.method, form.sub)) {
      infra.logger.info({ event: "method_removed", ...form }, "factor method removed by its user");
    }
    seeOther(ar.res, accountUrl(ar.params, { removed: form.method }));
  }

  return router;
}

/** One account request, with the policy snapshot it reads and what follows from it. */
interface AccountRequest {
  req: Request;
  res: Response;
  policy: PolicySnapshot;
  params: AccountParams;
  lang: Lang;
}
