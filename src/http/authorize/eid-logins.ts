import type { ServerResponse } from "node:http";
import type { Infra } from "../../infra/infra.ts";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { EidBeginOptions } from "../../eid/eid-upstream.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { oauthError } from "../../errors/oauth-error.ts";
import { paths } from "../../http-kit/paths.ts";
import { seeOther } from "../../http-kit/see-other.ts";
import { runFlowStep } from "../../runtime/flow-step.ts";
import { extendPath, stateName } from "../../runtime/login-path.ts";
import { loginTypeFlowId } from "../../runtime/login-flows.ts";
import type { EidFlowContext, EidFlowInput } from "../../../flows/eid.flow.ts";
import { loginFlowArchive } from "./login-flow-archive.ts";

/**
 * The interaction of an eID login is bound to the browser by this cookie, scoped to the callback only.
 * A name of its own, not the interaction cookie's: browsers share cookies across the ports of one host,
 * and a development upstream on the same host sets interaction cookies of its own.
 */
export const EID_COOKIE = { name: "portcullis_eid_login", path: paths.eidCallback } as const;

/**
 * The eID side of /eID/authorize (its login plan, made like any other, chose the eID login type and
 * its upstream): the start of the eID flow (flows/eid.flow.ts), whose first step sends the browser
 * to the upstream eID provider.
 */
export function eidLogins(infra: Infra) {
  const archive = loginFlowArchive(infra);
  return {
    /**
     * Runs the login type's eID flow up to `awaitingCallback` — its begin actor discovers the upstream
     * and makes state, nonce and PKCE verifier — and keeps it in an interaction of kind "eid" (the
     * snapshot holds the pending values), found again by the state sent upstream and bound to this
     * browser by a cookie only /eID/callback receives; then sends the browser to the upstream. An
     * upstream that cannot be reached fails the step: temporarily_unavailable at the client.
     */
    async begin(res: ServerResponse, policy: PolicySnapshot, request: AuthorizationRequest): Promise<void> {
      const plan = request.plan!;
      const flow = policy.flows.get(loginTypeFlowId(plan.loginTypeName!));
      // Config rules make every eid login type name a declared upstream; its flow exists with it.
      if (flow?.kind !== "eid" || plan.upstream === undefined)
        throw oauthError("invalid_request", "no eID flow serves this request", { allowRedirect: true });
      archive.keep(flow);
      const flowInput: EidFlowInput = { upstream: plan.upstream, options: beginOptions(request) };
      const step = await runFlowStep(flow, { input: flowInput });
      const { redirect } = step.snapshot.context as EidFlowContext;
      const path = extendPath(undefined, stateName(step.snapshot.value));
      const { interaction, browserCookie } = await infra.interactions.create({
        kind: "eid",
        request,
        flowInput,
        flowId: flow.id,
        flowHash: flow.hash,
        snapshot: step.persisted,
        path,
      });
      await infra.interactions.link(redirect!.pending.state, interaction);
      res.appendHeader("Set-Cookie", infra.cookies.set(EID_COOKIE.name, browserCookie, { path: EID_COOKIE.path }));
      seeOther(res, redirect!.url);
    },
  };
}

/**
 * The client's own request options the upstream should honour: a fresh login, the login's age, the
 * language, and the acr values the plan found for the upstream (forwarded as the upstream's own values).
 */
function beginOptions(request: AuthorizationRequest): EidBeginOptions {
  const fresh = request.prompt.includes("login") || request.prompt.includes("force_login");
  const acr = request.plan?.upstreamAcr;
  return {
    ...(fresh && { prompt: "login" }),
    ...(acr !== undefined && acr.length > 0 && { acr: [...acr] }),
    // The claims parameter made the acr essential (OIDC Core §5.5.1.1): an upstream that performs less fails the login.
    ...(acr !== undefined && acr.length > 0 && request.claims?.acr?.essential === true && { acrEssential: true }),
    ...(request.maxAge !== undefined && { maxAge: request.maxAge }),
    ...(request.lang !== undefined && { uiLocales: request.lang }),
  };
}
