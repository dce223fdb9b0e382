import type { IncomingMessage, ServerResponse } from "node:http";
import type { Scope } from "../../infra/scope.ts";
import type { BrowserPages } from "../../views/browser-pages.ts";
import type { EidLoginInteraction, LoginInteraction } from "../../runtime/interaction.ts";
import type { RunnableFlow } from "../../runtime/login-flows.ts";
import type { LoginFlowOutput } from "../../../flows/login-flow-setup.ts";
import { authenticationResult } from "../../runtime/authentication-result.ts";
import { auditLoginSucceeded, loginRequestFacts } from "../../runtime/audit-login-step.ts";
import { recordMethodUse } from "../../runtime/record-method-use.ts";
import { writeAuthorizationResponse } from "./authorization-response.ts";
import { completeAuthorization, responsePage } from "./complete-authorization.ts";

/** A login flow that reached its end for an authorize request: the flow, where it ended and the path it took. */
export interface FinishedLogin {
  interaction: LoginInteraction | EidLoginInteraction;
  flow: RunnableFlow;
  /** An eID login's carries the acr its upstream performed. */
  output: LoginFlowOutput & { acr?: string };
  path: string[];
}

/**
 * A login flow's success, answered to the client behind it (a flow on the login pages, or the eID
 * login at its callback): amr and acr from the methods passed (with a step-up's earlier ones), the
 * id_token_hint check, login.succeeded on the audit trail with the flow's hash and path, "last used"
 * for the factor methods, and the authorization completed (SSO session, code). Returns false when
 * someone else logged in than the user id_token_hint names (login_required at the client instead).
 * `leaveRedirectChain`: the browser arrived by another site's redirect (the eID callback).
 */
export async function finishLogin(
  scope: Scope,
  pages: BrowserPages,
  req: IncomingMessage,
  res: ServerResponse,
  finished: FinishedLogin,
  leaveRedirectChain = false,
): Promise<boolean> {
  const { infra, policy } = scope;
  const { interaction, flow, output, path } = finished;
  const authenticated = authenticationResult(
    output,
    infra.methods,
    infra.clock(),
    interaction.kind === "login" ? interaction.stepUpFrom : undefined,
  );
  const { request } = interaction;
  // OIDC Core §3.1.2.1: the client asked for the user its id_token_hint names; someone else logged in.
  if (request.hintSub !== undefined && authenticated.sub !== request.hintSub) {
    infra.audit.record({
      type: "login.failed",
      flow_id: flow.id,
      machine_hash: flow.hash,
      path,
      login_id: interaction.loginId,
      ...loginRequestFacts(request),
      sub: authenticated.sub,
      reason: "login_required",
    });
    const client = policy.clients.get(request.clientId)!;
    const error = {
      error: "login_required",
      error_description: "the user who logged in is not the one id_token_hint names",
      iss: infra.issuer,
    };
    writeAuthorizationResponse(res, pages, request, error, responsePage(req, request, client, leaveRedirectChain));
    return false;
  }
  const login = auditLoginSucceeded(infra.audit, interaction, flow, path, authenticated);
  // "Last used" is kept for the factor methods only (an eID login's `eid` is none).
  recordMethodUse(infra, { sub: output.sub, methods: output.methods.filter((method) => infra.methods.has(method)) });
  await completeAuthorization(scope, pages, req, res, request, { login }, { leaveRedirectChain });
  return true;
}
