import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import type { Infra } from "../../../infra/infra.ts";
import { takeScope } from "../../../infra/scope.ts";
import { answerWithErrorPage, type BrowserPages } from "../../../views/browser-pages.ts";
import { paths } from "../../../http-kit/paths.ts";
import { requestIdOf } from "../../../http-kit/write-response.ts";
import { writePage } from "../../../views/page-headers.ts";
import { resolveLang } from "../../../i18n/lang.ts";
import type { ViewEngine } from "../../../views/view-engine.ts";
import { runFlowStep } from "../../../runtime/flow-step.ts";
import type { Interaction } from "../../../runtime/interaction.ts";
import { Interactions } from "../../../runtime/interactions.ts";
import { interactionFlow } from "../../../runtime/interaction-flow.ts";
import { auditLoginStep } from "../../../runtime/audit-login-step.ts";
import { clientAddress } from "../../../security/client-address.ts";
import { INTERACTION_COOKIE, interactionPath } from "../interaction-cookie.ts";
import { missingCookieReason, redirectWithTestCookie } from "../cookies-blocked.ts";
import { loginFlowArchive } from "../login-flow-archive.ts";
import { interactionLang, kindOf } from "./interaction-kinds.ts";
import { interactionExpired } from "./interaction-expired.ts";
import { writeStepPage } from "./interaction-page.ts";
import { formEvent } from "./form-event.ts";

/**
 * The generic flow runtime over HTTP. GET /interaction/:id shows the current step; POST sends the
 * form as an event to the flow, waits for it to settle, persists the snapshot and shows the next step,
 * or — when the flow is done — finishes the interaction as its kind does (interaction-kinds.ts).
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

  function expired(req: Request, res: Response, interaction?: Interaction): void {
    interactionExpired(pages, req, res, interaction && interactionLang(interaction));
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
    const lang = resolveLang(interactionLang(unbound), req.headers["accept-language"]);
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
    const kind = kindOf(interaction).onPages;
    // A kind without pages here (an eID login waits for the upstream's callback, /eID/callback).
    if (!kind) return expired(req, res, interaction);
    // One snapshot for the whole request, even if a reload swaps it meanwhile (src/reload/).
    const scope = takeScope(infra);
    const flow = interactionFlow(scope.policy.flows, infra.retainedFlows, interaction);
    // A flow removed from the configuration since the page was shown ends it; so does what its kind depends on.
    if (!flow || !(await kind.stillValid(scope, req, interaction))) return expired(req, res, interaction);
    archive.keep(flow);
    // A flow that changed since the snapshot was taken, in a version this node does not have, starts again from its beginning.
    const persisted = interaction.flowHash === flow.hash ? interaction.snapshot : undefined;
    const address = clientAddress(req, infra.settings.listen.trust_proxy);
    // Every posted form may cost a secret check or a message sent: each address has a budget.
    if (body && !(await infra.loginRequests.tryAttempt(address))) {
      const lang = interactionLang(interaction);
      return pages.error(req, res, 429, "temporarily_unavailable", "too many login attempts from this address; try again later", lang);
    }
    const input = kind.flowInput(interaction);
    if (body && !Interactions.csrfMatches(interaction, body.csrf)) {
      const result = await runFlowStep(flow, { input, persisted });
      return await writeStepPage(scope, views, { req, res, interaction, kind, flow, result, status: 403, errorKey: "error.csrf" });
    }
    const event = body ? formEvent(body, { clientAddress: address }) : undefined;
    const result = await runFlowStep(flow, { input, persisted, event });
    const path = auditLoginStep(infra.audit, interaction, flow, result, event !== undefined);
    if (result.snapshot.status === "done") {
      // An interaction completes once, even if the last form is posted twice.
      if (!(await infra.interactions.finish(interaction.id))) return expired(req, res, interaction);
      res.appendHeader("Set-Cookie", infra.cookies.clear(INTERACTION_COOKIE, { path: interactionPath(interaction.id) }));
      return kind.finish({ scope, pages, req, res, interaction, flow, output: result.snapshot.output, path });
    }
    await infra.interactions.save({ ...interaction, flowHash: flow.hash, snapshot: result.persisted, path });
    await writeStepPage(scope, views, { req, res, interaction, kind, flow, result, status: 200 });
  }

  return router;
}
