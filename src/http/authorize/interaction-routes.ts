import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import type { Infra } from "../../infra/infra.ts";
import { takeScope, type Scope } from "../../infra/scope.ts";
import { answerWithErrorPage, type BrowserPages } from "../../views/browser-pages.ts";
import { completeAuthorization } from "./complete-authorization.ts";
import { clientFrameAncestors } from "./client-frame-ancestors.ts";
import { paths } from "../../http-kit/paths.ts";
import { seeOther } from "../../http-kit/see-other.ts";
import { requestIdOf } from "../../http-kit/write-response.ts";
import { redirectTargetSource, writePage } from "../../views/page-headers.ts";
import { resolveLang } from "../../i18n/lang.ts";
import type { ViewEngine } from "../../views/view-engine.ts";
import { authenticationResult } from "../../runtime/authentication-result.ts";
import { currentView, runFlowStep, type FlowEvent, type StepResult } from "../../runtime/flow-step.ts";
import { INTERACTION_COOKIE, interactionPath } from "./interaction-cookie.ts";
import type {
  AccountLoginInteraction,
  ChannelChoiceInteraction,
  EnrollmentInteraction,
  FlowInteraction,
  Interaction,
} from "../../runtime/interaction.ts";
import { recordMethodUse } from "../../runtime/record-method-use.ts";
import { accountUrl } from "../../runtime/account-params.ts";
import type { RequestFacts } from "../../plugin-contract/factor-plugin.ts";
import { methodRoutePrefix } from "../../plugin-contract/method-manifest.ts";
import { currentSession } from "../../sessions/current-session.ts";
import { startSession } from "../../sessions/start-session.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { createNonce } from "../../views/page-headers.ts";
import type { LoginFlowInput, LoginFlowOutput } from "../../../flows/login.flow.ts";
import type { LoginFlowContext } from "../../../flows/login-flow-setup.ts";
import { IDENTIFY_USER } from "../../../flows/identify-user.machine.ts";
import type { EnrollmentFlowInput } from "../../../flows/enrollment.flow.ts";
import type { ChannelChoiceInput } from "../../../flows/channel-choice.flow.ts";
import { Interactions } from "../../runtime/interactions.ts";
import { clientAddress } from "../../security/client-address.ts";
import type { RunnableFlow } from "../../runtime/login-flows.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { missingCookieReason, redirectWithTestCookie } from "./cookies-blocked.ts";
import { appEntryUrl, authorizeParamsOf } from "../../trusted-app/acmeauth-sso.ts";
import { auditLoginStep, auditLoginSucceeded } from "../../runtime/audit-login-step.ts";
import { loginFlowArchive } from "./login-flow-archive.ts";
import { interactionFlow } from "../../runtime/interaction-flow.ts";
import { finishLogin } from "./finish-login.ts";
import { verifyingAccount } from "./verifying-account.ts";

/** Form fields the runtime itself reads; every other field is event data. */
const RESERVED_FIELDS = new Set(["csrf", "event", "type"]);
const EVENT_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

/** The partial name a view is registered under: a method's views are namespaced by its id. */
export const partialName = (owner: string, view: string) => (owner === "flow" ? `flow-${view}` : `method-${owner}-${view}`);

/**
 * The generic flow runtime over HTTP. GET /interaction/:id shows the current step; POST sends the
 * form as an event to the flow, waits for it to settle, persists the snapshot and shows the next step,
 * or — when the flow is done — completes the authorization with its output.
 */
export function interactionRoutes(infra: Infra, views: ViewEngine, pages: BrowserPages): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: infra.settings.security.max_body_bytes, parameterLimit: 50 });
  // Each flow version a login runs, kept for `portcullis audit trace` (once per version and process).
  const archive = loginFlowArchive(infra);

  router.get(`${paths.interaction}/:id`, (req, res) => {
    step(req, res).catch((err: unknown) => failed(req, res, err));
  });
  router.post(`${paths.interaction}/:id`, form, (req, res) => {
    step(req, res, req.body as Record<string, unknown>).catch((err: unknown) => failed(req, res, err));
  });

  // Body-parser refusals (too large, too many fields) on these routes are pages too.
  router.use(`${paths.interaction}/:id`, ((err, req, res, _next) => failed(req, res, err)) as ErrorRequestHandler);

  /** The page for a login link that no longer leads anywhere (unknown, finished, another browser's, or its client or flow removed). */
  function expired(req: Request, res: Response, interaction?: Interaction): void {
    pages.error(req, res, 400, "interaction_expired", "this login page is no longer valid", interaction && langOf(interaction));
  }

  /**
   * The interaction is unknown or not bound to the cookies this request carries. When it is alive and
   * the browser sent no cookies at all, cookies are the likely cause: find out, and say so.
   */
  async function withoutBinding(req: Request, res: Response, id: string): Promise<void> {
    const unbound = await infra.interactions.peek(id);
    if (!unbound) return expired(req, res);
    const reason = missingCookieReason(req);
    if (reason === "test") return redirectWithTestCookie(infra, req, res);
    if (reason === "other-browser") return expired(req, res, unbound);
    const lang = resolveLang(langOf(unbound), req.headers["accept-language"]);
    const data = {
      title: views.translate(lang, "error.cookies_title"),
      error: "cookies_required",
      description: "",
      descriptionKey: "error.cookies_required",
    };
    writePage(res, 400, views.render("error", data, lang));
  }

  /** A person is looking at these pages: failures (a store outage is a 503) are a page, not JSON. */
  function failed(req: Request, res: Response, err: unknown): void {
    answerWithErrorPage(pages, infra.logger, req, res, err, { reqId: requestIdOf(res), path: req.path });
  }

  async function step(req: Request, res: Response, body?: Record<string, unknown>): Promise<void> {
    const id = String(req.params.id);
    const interaction = await infra.interactions.find(id, infra.cookies.read(req, INTERACTION_COOKIE, interactionPath(id)));
    if (!interaction) return withoutBinding(req, res, id);
    // An eID login has no pages here: it waits for the upstream's callback (/eID/callback).
    if (interaction.kind === "eid") return expired(req, res, interaction);
    // One snapshot for the whole request, even if a reload swaps it meanwhile (src/reload/).
    const scope = takeScope(infra, req);
    const { policy } = scope;
    const flow = interactionFlow(policy.flows, infra.retainedFlows, interaction);
    // A flow, client or method removed from the configuration since the page was shown ends it; so
    // does the end of the session an enrollment runs in.
    if (!flow || !(await stillValid(req, scope, interaction))) return expired(req, res, interaction);
    archive.keep(flow);
    // A flow that changed since the snapshot was taken, in a version this node does not have, starts again from its beginning.
    const persisted = interaction.flowHash === flow.hash ? interaction.snapshot : undefined;
    const address = clientAddress(req, infra.settings.listen.trust_proxy);
    // Every posted form may cost a secret check or a message sent: each address has a budget.
    if (body && !(await infra.loginRequests.tryAttempt(address))) {
      return pages.error(
        req,
        res,
        429,
        "temporarily_unavailable",
        "too many login attempts from this address; try again later",
        langOf(interaction),
      );
    }
    if (body && !Interactions.csrfMatches(interaction, body.csrf)) {
      const result = await runFlowStep(flow, { input: flowInput(interaction), persisted });
      return render(req, res, policy, interaction, flow, result, 403, "error.csrf");
    }
    const event = body ? toEvent(body, { clientAddress: address }) : undefined;
    const result = await runFlowStep(flow, { input: flowInput(interaction), persisted, event });
    const path = auditLoginStep(infra.audit, interaction, flow, result, event !== undefined);
    if (result.snapshot.status === "done") {
      // An interaction completes once, even if the last form is posted twice.
      if (!(await infra.interactions.finish(interaction.id))) return expired(req, res, interaction);
      res.appendHeader("Set-Cookie", infra.cookies.clear(INTERACTION_COOKIE, { path: interactionPath(interaction.id) }));
      const output = result.snapshot.output as LoginFlowOutput;
      if (interaction.kind === "login") return void (await finishLogin(scope, pages, req, res, { interaction, flow, output, path }));
      if (interaction.kind === "channel")
        return finishChannelChoice(scope, req, res, interaction, (result.snapshot.output as { channel: string }).channel);
      if (interaction.kind === "account") return finishAccountLogin(req, res, interaction, flow, output, path);
      return finishEnrollment(res, interaction);
    }
    await infra.interactions.save({ ...interaction, flowHash: flow.hash, snapshot: result.persisted, path });
    render(req, res, policy, interaction, flow, result, 200);
  }

  async function stillValid(req: Request, { policy }: Scope, interaction: FlowInteraction): Promise<boolean> {
    if (interaction.kind === "login" || interaction.kind === "channel")
      return policy.clients.get(interaction.request.clientId) !== undefined;
    if (interaction.kind === "account") return true;
    return infra.methods.has(interaction.method) && (await currentSession({ infra, policy }, req))?.sub === interaction.sub;
  }

  /** The channel is chosen: the authorization completes with it, for the login kept or the browser's session. */
  async function finishChannelChoice(
    scope: Scope,
    req: Request,
    res: Response,
    interaction: ChannelChoiceInteraction,
    channel: string,
  ): Promise<void> {
    if (interaction.login)
      return completeAuthorization(scope, pages, req, res, interaction.request, { login: interaction.login }, { chosenChannel: channel });
    const cookie = infra.cookies.read(req, SESSION_COOKIE);
    const session = await currentSession(scope, req);
    if (!session || !cookie) return expired(req, res, interaction);
    await completeAuthorization(scope, pages, req, res, interaction.request, { existing: session, cookie }, { chosenChannel: channel });
  }

  /** Signed in to the account page: the SSO session starts (as after any login), and the page shows. */
  async function finishAccountLogin(
    req: Request,
    res: Response,
    interaction: AccountLoginInteraction,
    flow: RunnableFlow,
    output: LoginFlowOutput,
    path: string[],
  ): Promise<void> {
    const login = auditLoginSucceeded(infra.audit, interaction, flow, path, authenticationResult(output, flow.methods, infra.clock()));
    const { cookie } = await startSession(infra, req, login);
    recordMethodUse(infra, output);
    res.appendHeader("Set-Cookie", infra.cookies.set(SESSION_COOKIE, cookie));
    seeOther(res, accountUrl(interaction.back ?? {}));
  }

  /** The method is enrolled (its machine recorded it): back to the account page, which says so. */
  function finishEnrollment(res: Response, interaction: EnrollmentInteraction): void {
    infra.logger.info({ event: "method_enrolled", sub: interaction.sub, method: interaction.method }, "factor method enrolled");
    seeOther(res, accountUrl(interaction.back ?? {}, { enrolled: interaction.method }));
  }

  function render(
    req: Request,
    res: Response,
    policy: PolicySnapshot,
    interaction: FlowInteraction,
    flow: RunnableFlow,
    result: StepResult,
    status: number,
    errorKey?: string,
  ): void {
    const view = currentView(result);
    if (!view) throw new Error(`flow ${flow.id} is in a state without a view and not done`);
    // A flow's own step (the channel chooser) draws from the flow's context; a method's from the method's.
    const methodContext = (view.owner === "flow" ? result.snapshot.context : (result.method?.snapshot.context ?? {})) as Record<
      string,
      unknown
    >;
    const nonce = createNonce();
    const common = {
      csrf: interaction.csrf,
      action: interactionPath(interaction.id),
      nonce,
      errorKey: errorKey ?? methodContext.errorKey,
      methodPartial: partialName(view.owner, view.view),
      method: methodContext,
      methodPath: result.method ? methodRoutePrefix(result.method.id) : undefined,
    };
    const lang = resolveLang(langOf(interaction), req.headers["accept-language"]);
    // Method pages may load their own script (with the nonce) and poll their routes (connect-src 'self').
    const headers = { nonce, connectSrc: ["'self'"] };
    if (interaction.kind === "enrollment") {
      const html = views.render("enroll", { ...common, methodLabelKey: `method.${interaction.method}.label` }, lang);
      return writePage(res, status, html, headers);
    }
    const loginPage = {
      ...common,
      otherMethods: groupMethods(result, flow)
        .filter((id) => id !== currentMethodId(result, flow.methods))
        .map((id) => ({ id, labelKey: `method.${id}.label` })),
    };
    if (interaction.kind === "account") {
      const html = views.render("login", { ...loginPage, clientName: views.translate(lang, "app.name") }, lang);
      return writePage(res, status, html, headers);
    }
    const client = policy.clients.get(interaction.request.clientId)!;
    const signedInAs = interaction.kind === "login" ? interaction.signedInAs : undefined;
    const signedIn = signedInAs ? policy.users.findBySub(signedInAs) : undefined;
    const html = views.render(
      "login",
      {
        ...loginPage,
        clientName: client.name,
        signedInAs: signedIn ? (signedIn.claims.name ?? signedIn.username) : undefined,
        verifyingAccount: verifyingAccount(interaction.request.plan, interaction.request.loginHint),
        loginHint: interaction.request.loginHint,
        appEntryUrl: interaction.request.framed ? undefined : appEntryUrl(authorizeParamsOf(interaction.request)),
      },
      lang,
    );
    // Only the iframe login may be framed, and only by the client's own registered origins.
    const frameAncestors = interaction.request.framed ? clientFrameAncestors(client) : undefined;
    // A successful login POST ends in a 303 to the client, and CSP form-action governs that redirect too.
    writePage(res, status, html, { ...headers, frameAncestors, formAction: [redirectTargetSource(interaction.request.redirectUri)] });
  }

  return router;
}

/**
 * The method the flow is in: the outermost active state named after one of the flow's methods,
 * wherever the flow nests its methods; while the flow's identify step runs for a method that verifies
 * a known user (flows/method-group.ts), that method.
 */
function currentMethodId(result: StepResult, methods: ReadonlyMap<string, unknown>): string | undefined {
  const inMethod = activeStates(result.snapshot.value).find((state) => methods.has(state));
  if (inMethod !== undefined) return inMethod;
  return result.method?.id === IDENTIFY_USER ? (result.snapshot.context as Partial<LoginFlowContext>).trying?.method : undefined;
}

/**
 * The methods the user may switch to where the flow is: the method states beside the current one (a
 * two-factor flow's second factor offers only its class), or every method when no group is active.
 */
function groupMethods(result: StepResult, flow: RunnableFlow): string[] {
  let node: { states?: Record<string, unknown> } = flow.machine.root;
  for (const state of activeStates(result.snapshot.value)) {
    if (flow.methods.has(state)) return Object.keys(node.states ?? {}).filter((id) => flow.methods.has(id));
    node = (node.states?.[state] ?? {}) as typeof node;
  }
  return [...flow.methods.keys()];
}

/** The active states from the root down (the first region of a parallel state): `{ a: { b: "c" } }` → a, b, c. */
function activeStates(value: unknown): string[] {
  if (typeof value === "string") return [value];
  const [state, inner] = typeof value === "object" && value !== null ? (Object.entries(value)[0] ?? []) : [];
  return state === undefined ? [] : [state, ...activeStates(inner)];
}

/** A login flow starts from what the authorize endpoint planned (older interactions: the login_hint); an enrollment flow from the signed-in user. */
function flowInput(interaction: FlowInteraction): LoginFlowInput | EnrollmentFlowInput | ChannelChoiceInput {
  if (interaction.kind === "login") return interaction.flowInput ?? { loginHint: interaction.request.loginHint };
  if (interaction.kind === "channel") return { channels: interaction.channels };
  return interaction.kind === "account" ? {} : { sub: interaction.sub };
}

function langOf(interaction: Interaction): string | undefined {
  return interaction.kind === "login" || interaction.kind === "channel" || interaction.kind === "eid"
    ? interaction.request.lang
    : interaction.lang;
}

/**
 * The form as an event: `event` names it, other string fields are its data, and the request's facts
 * (RequestFacts) are added by the runtime, replacing any form field of the same name.
 */
function toEvent(body: Record<string, unknown>, facts: RequestFacts): FlowEvent | undefined {
  const type = body.event;
  if (typeof type !== "string" || !EVENT_NAME.test(type)) return undefined;
  const event: FlowEvent = { type };
  for (const [name, value] of Object.entries(body)) if (!RESERVED_FIELDS.has(name) && typeof value === "string") event[name] = value;
  return { ...event, ...facts };
}
