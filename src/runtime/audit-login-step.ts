import type { AuditTrail } from "../audit/audit-trail.ts";
import type { Authentication, AuthorizationRequest } from "../oauth/authorization-request.ts";
import type { LoginEvent } from "../audit/audit-event.ts";
import { randomToken } from "../crypto/random-token.ts";
import type { Interaction } from "./interaction.ts";
import type { RunnableFlow } from "./login-flows.ts";
import type { StepResult } from "./flow-step.ts";
import { extendPath, stateName } from "./login-path.ts";

/**
 * What one step of a flow means for the audit trail, recorded: a factor passed (the flow's list of
 * passed methods grew), or refused (a form was posted and the running method shows an error: its
 * message key is the reason; a refused factor is also a failed login attempt). Returns the
 * interaction's path with this step's state, to store with it. Only ids, flow, method and state names
 * and message keys are recorded: never what the user typed.
 */
export function auditLoginStep(
  audit: AuditTrail,
  interaction: Interaction,
  flow: RunnableFlow,
  result: StepResult,
  posted: boolean,
): string[] {
  // A flow that changed since the snapshot was taken restarted: so does its path.
  const continued = interaction.flowHash === flow.hash && interaction.snapshot !== undefined;
  const loginId = interaction.loginId === undefined ? {} : { login_id: interaction.loginId };
  const path = extendPath(continued ? interaction.path : undefined, stateName(result.snapshot.value));
  if (interaction.kind !== "login" && interaction.kind !== "account") return path;
  const context = result.snapshot.context as { sub?: unknown; methods?: unknown };
  const sub = typeof context.sub === "string" ? context.sub : undefined;
  const before = continued ? passedMethods((interaction.snapshot as { context?: { methods?: unknown } }).context?.methods) : [];
  for (const method of passedMethods(context.methods).slice(before.length))
    audit.record({ type: "factor.passed", method, flow_id: flow.id, ...loginId, ...(sub && { sub }) });
  const errorKey = (result.method?.snapshot.context as { errorKey?: unknown } | undefined)?.errorKey;
  if (posted && result.snapshot.status !== "done" && result.method && typeof errorKey === "string") {
    audit.record({ type: "factor.failed", method: result.method.id, flow_id: flow.id, ...loginId, reason: errorKey, ...(sub && { sub }) });
    audit.record({
      type: "login.failed",
      flow_id: flow.id,
      machine_hash: flow.hash,
      path,
      ...loginId,
      reason: errorKey,
      ...requestFacts(interaction),
      ...(sub && { sub }),
    });
  }
  return path;
}

const passedMethods = (methods: unknown): string[] =>
  Array.isArray(methods) ? methods.filter((m): m is string => typeof m === "string") : [];

/**
 * A finished login, recorded with the path it took: the authentication gets the login's audit id, which
 * the SSO session it starts records (session.started), so a trace leads from a token to its login.
 */
export function auditLoginSucceeded(
  audit: AuditTrail,
  interaction: Interaction,
  flow: RunnableFlow,
  path: string[],
  login: Authentication,
): Authentication {
  // Interactions stored before they had an audit id get one now.
  const loginId = interaction.loginId ?? randomToken(16);
  const met = (loginRequestOf(interaction)?.plan?.acrMatched ?? []).map((m) => m.declared);
  audit.record({
    type: "login.succeeded",
    flow_id: flow.id,
    machine_hash: flow.hash,
    path,
    login_id: loginId,
    ...requestFacts(interaction),
    sub: login.sub,
    amr: login.amr,
    acr: login.acr,
    ...(met.length > 0 && { acr_values_met: [...new Set(met)] }),
  });
  return { ...login, loginId };
}

/** What a login event says of the authorize request behind a login: the client, the login type and the acr values asked. */
export function loginRequestFacts(request: AuthorizationRequest): Pick<LoginEvent, "client_id" | "login_type" | "acr_values"> {
  const facts: Pick<LoginEvent, "client_id" | "login_type" | "acr_values"> = { client_id: request.clientId };
  if (request.plan?.loginTypeName !== undefined) facts.login_type = request.plan.loginTypeName;
  if (request.acrValues !== undefined && request.acrValues.length > 0) facts.acr_values = request.acrValues;
  return facts;
}

/** The authorize request a login answers (a login flow's or an eID login's); none for the account page's login or an enrollment. */
const loginRequestOf = (interaction: Interaction) =>
  interaction.kind === "login" || interaction.kind === "eid" ? interaction.request : undefined;

const requestFacts = (interaction: Interaction) => {
  const request = loginRequestOf(interaction);
  return request ? loginRequestFacts(request) : {};
};
