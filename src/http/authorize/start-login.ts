import type { ServerResponse } from "node:http";
import type { Infra } from "../../infra/infra.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { SsoSession } from "../../sessions/sso-sessions.ts";
import type { LoginFlowInput } from "../../../flows/login-flow-setup.ts";
import { oauthError } from "../../errors/oauth-error.ts";
import { redirectToInteraction } from "./interaction-cookie.ts";
import { sessionFacts } from "./login-plan-step.ts";

const NOT_LOGGED_IN = "the user is not logged in";

/** Why an authorize request needs the user: not at all, a login, or a step-up of the session's user. */
export type LoginNeed = { kind: "none" } | { kind: "login"; reason: string } | { kind: "step_up"; reason: string };

/**
 * Whether the browser's session answers the request (its plan made, src/login-policy): the session is
 * the user the request expects, fresh enough, and proves what the plan asks (a second factor, the
 * trusted app's FIDO2, an eID login). A session of the right user that lacks only strength steps up.
 * `fresh` is freshLoginReason's answer for this session, which planned the login too (read once, at one
 * clock reading, so that the plan and this decision agree).
 */
export function loginNeed(request: AuthorizationRequest, session: SsoSession | undefined, fresh: string | undefined): LoginNeed {
  if (!session) return { kind: "login", reason: NOT_LOGGED_IN };
  if (fresh !== undefined) return { kind: "login", reason: fresh };
  const plan = request.plan;
  if (plan === undefined || plan.sessionSuffices) return { kind: "none" };
  // A two-factor request over a one-factor session asks only for the class the session lacks.
  if (plan.flow === "two_factor" && plan.missingClasses.length === 1)
    return { kind: "step_up", reason: "the request needs a second factor the session does not have" };
  return { kind: "login", reason: "the request needs a stronger login than the session's" };
}

/**
 * Why the session cannot count towards this request whatever the plan (no session, prompt=login,
 * another user than id_token_hint names, older than max_age), or undefined. Such a request is a whole
 * new login, so it is planned as if there were no session: a two-factor login then asks for both
 * factors, not only the one the session lacks.
 */
export function freshLoginReason(request: AuthorizationRequest, session: SsoSession | undefined, now: number): string | undefined {
  if (!session) return NOT_LOGGED_IN;
  if (request.prompt.includes("login")) return "prompt=login asks for a new login";
  if (request.hintSub !== undefined && request.hintSub !== session.sub) return "the logged-in user is not the one id_token_hint names";
  if (request.maxAge !== undefined && now / 1000 - session.authTime > request.maxAge) return "the login is older than max_age";
  return undefined;
}

/**
 * Starts the interaction that runs the plan's flow: the flow over the plan's methods, and its input —
 * the login_hint, the user already known (a step-up's session user, a vendor account), the classes
 * still missing, and what the trusted app must attest.
 */
export async function startLogin(
  infra: Infra,
  policy: PolicySnapshot,
  res: ServerResponse,
  request: AuthorizationRequest,
  need: LoginNeed,
  session: SsoSession | undefined,
): Promise<void> {
  const plan = request.plan!;
  const stepUp = need.kind === "step_up" && session !== undefined;
  if (plan.flow === "eid") throw oauthError("invalid_request", "login_type eID is served at /eID/authorize", { allowRedirect: true });
  // A step-up passes one factor of a class: the second-factor flow over the missing class's methods.
  const kind = stepUp ? "second_factor" : plan.flow;
  const flow = policy.flows.forPlan(kind, plan.methods);
  if (!flow) throw oauthError("invalid_request", "no login flow serves this request's methods", { allowRedirect: true });
  const sub = stepUp ? session.sub : plan.vendorAccount;
  const flowInput: LoginFlowInput = {
    ...(request.loginHint !== undefined && { loginHint: request.loginHint }),
    ...(sub !== undefined && { sub }),
    ...(plan.flow === "two_factor" && { missingClasses: plan.missingClasses }),
    ...(plan.enrollOnFirstUse && { enrollOnFirstUse: true }),
    // What the trusted app must sign into its answer (acr_values app_gps, app_faceid).
    ...((plan.claims.gps || plan.claims.faceid) && { app: { gps: plan.claims.gps, faceid: plan.claims.faceid } }),
  };
  const signedInAs = session && request.prompt.includes("login") ? session.sub : undefined;
  const { interaction, browserCookie } = await infra.interactions.create({
    kind: "login",
    request,
    flowId: flow.id,
    flowHash: flow.hash,
    flowInput,
    ...(signedInAs !== undefined && { signedInAs }),
    ...(stepUp && { stepUpFrom: [...sessionFacts(session).methods] }),
  });
  redirectToInteraction(infra, res, interaction.id, browserCookie, { sameSiteNone: request.framed });
}
