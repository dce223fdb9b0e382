import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { EidLoginInteraction } from "../../runtime/interaction.ts";
import { answerWithErrorPage, type BrowserPages } from "../../views/browser-pages.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import { paths } from "../../http-kit/paths.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import type { RunnableFlow } from "../../runtime/login-flows.ts";
import { runFlowStep } from "../../runtime/flow-step.ts";
import { interactionFlow } from "../../runtime/interaction-flow.ts";
import { auditLoginStep, loginRequestFacts } from "../../runtime/audit-login-step.ts";
import type { EidFlowOutput, EidRefusal, UpstreamCallbackEvent } from "../../../flows/eid.flow.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { responsePage } from "./complete-authorization.ts";
import { EID_COOKIE } from "./eid-logins.ts";
import { finishLogin } from "./finish-login.ts";
import { loginFlowArchive } from "./login-flow-archive.ts";

/**
 * GET /eID/callback: the upstream eID provider sends the browser back here. The login is found by the
 * state the upstream returns (the only handle; nothing else in the query is trusted) and must be this
 * browser's (the binding cookie /eID/authorize set), on the eID flow version it started on; it
 * completes once. The query goes into the stored flow as UPSTREAM_CALLBACK: the flow's finish actor
 * finishes the upstream login (code exchange, ID token, userinfo, the account recorded) and the flow
 * ends authenticated — the authorization completes as after any login flow: an SSO session for the
 * eID account and the code, with login_type, to the client — or failed: the upstream's refusal goes to
 * the client as an OAuth error. A callback this browser has no login for is a page.
 */
export function eidCallbackEndpoint(infra: Infra, pages: BrowserPages): ProtocolRoute {
  const archive = loginFlowArchive(infra);
  const unknown = (ex: Exchange) =>
    pages.error(
      ex.req,
      ex.res,
      400,
      "invalid_request",
      "this eID login is not known here: it has expired, was already completed, or was started in another browser",
    );

  async function handle(ex: Exchange): Promise<void> {
    const { req, res } = ex;
    const url = req.url ?? "";
    const query = new URLSearchParams(url.slice(url.indexOf("?") + 1 || url.length));
    const state = query.get("state");
    const interaction = state
      ? await infra.interactions.findByLink(state, infra.cookies.read(req, EID_COOKIE.name, EID_COOKIE.path))
      : undefined;
    // One snapshot for the whole request, even if a reload swaps it meanwhile (src/reload/).
    const scope = takeScope(infra);
    const { policy } = scope;
    if (interaction?.kind !== "eid" || !policy.clients.get(interaction.request.clientId)) return unknown(ex);
    // The stored snapshot goes on only on the machine version it was taken on (a reload keeps that version for the interaction's lifetime).
    const flow = interactionFlow(policy.flows, infra.retainedFlows, interaction);
    if (flow?.hash !== interaction.flowHash) return unknown(ex);
    // An interaction completes once: a callback replayed (or raced) after it finds nothing to complete.
    if (!(await infra.interactions.finish(interaction.id))) return unknown(ex);
    res.appendHeader("Set-Cookie", infra.cookies.clear(EID_COOKIE.name, { path: EID_COOKIE.path }));
    archive.keep(flow);
    const event: UpstreamCallbackEvent = { type: "UPSTREAM_CALLBACK", query: query.toString() };
    const result = await runFlowStep(flow, { input: interaction.flowInput, persisted: interaction.snapshot, event });
    const path = auditLoginStep(infra.audit, interaction, flow, result, false);
    // A snapshot that was not waiting for a callback (it cannot be: the authorize step stored it there) has nothing to finish.
    if (result.snapshot.status !== "done") return unknown(ex);
    const output = result.snapshot.output as EidFlowOutput;
    if ("refused" in output) return refused(ex, policy, interaction, flow, path, output.refused);
    const completed = await finishLogin(scope, pages, req, res, { interaction, flow, output, path }, true);
    if (completed)
      infra.logger.info(
        {
          reqId: ex.reqId,
          event: "eid_login",
          upstream: interaction.flowInput.upstream,
          sub: output.sub,
          client: interaction.request.clientId,
        },
        "eID login",
      );
  }

  /** The upstream's refusal (cancelled, down, a bad answer): logged with its cause, on the audit trail, and to the client. */
  function refused(
    ex: Exchange,
    policy: PolicySnapshot,
    interaction: EidLoginInteraction,
    flow: RunnableFlow,
    path: string[],
    refusal: EidRefusal,
  ): void {
    const { request } = interaction;
    infra.logger.warn(
      {
        reqId: ex.reqId,
        event: "eid_login_failed",
        upstream: refusal.upstream,
        failure: refusal.failure,
        client: request.clientId,
        cause: refusal.cause,
      },
      "eID login failed",
    );
    infra.audit.record({
      type: "login.failed",
      flow_id: flow.id,
      machine_hash: flow.hash,
      path,
      login_id: interaction.loginId,
      ...loginRequestFacts(request),
      reason: refusal.failure,
    });
    const client = policy.clients.get(request.clientId)!;
    writeAuthorizationResponse(
      ex.res,
      pages,
      request,
      { error: refusal.error, error_description: refusal.description, iss: infra.issuer },
      responsePage(ex.req, request, client, true),
    );
  }

  return {
    path: paths.eidCallback,
    methods: ["GET"],
    readsBody: false,
    handle: (ex) => handle(ex).catch((err: unknown) => answerWithErrorPage(pages, infra.logger, ex.req, ex.res, err, ex)),
    fail: (ex, err) => answerWithErrorPage(pages, infra.logger, ex.req, ex.res, err, ex),
  };
}
