import { acrContext } from "../../login-policy/plan-authorize-request.ts";
import { OAuthError, type OAuthErrorCode } from "../../errors/oauth-error.ts";
import {
  checkAuthorizeRequest,
  checkClientAndRedirect,
  stateToReturn,
  type RawAuthorizeParams,
} from "../../http/authorize/authorize-params.ts";
import type { LoginPolicy, MethodClass } from "../../login-policy/login-policy.ts";
import type { LoginPlan, LoginRequest } from "../../login-policy/plan-login.ts";
import { planAuthorization } from "../../http/authorize/login-plan-step.ts";
import type { ResponseMode } from "../../oauth/authorization-request.ts";
import type { ClientRegistry } from "../../oauth/client-registry.ts";
import { tokenClaimsOf, type TokenClaims } from "./token-claims-of.ts";
import { explainAcrValues, type AcrValueExplained } from "./acr-explanation.ts";

/** What the what-if reads: what the server's policy snapshot holds, built from the same files. */
export interface ExplainPolicy {
  clients: ClientRegistry;
  login: LoginPolicy;
  /** The amr value of each configured method (login.yaml `methods.<id>.amr`, else the plugin's). */
  amr: ReadonlyMap<string, string>;
}

/** Which authorize endpoint the URL names, as the server serves it. */
export interface AuthorizeVariant {
  endpoint: LoginRequest["endpoint"];
  framed: boolean;
  /** /Account/Login adds prompt=login. */
  forcePrompt?: string;
}

export interface OfferedMethod {
  id: string;
  class: MethodClass;
  amr: string;
}

export interface Accepted {
  accepted: true;
  clientId: string;
  redirectUri: string;
  responseMode: ResponseMode;
  plan: LoginPlan;
  /** The plan's methods with their class and amr, in the order offered. */
  methods: OfferedMethod[];
  /** What the server checks before it shows anything, each with its outcome here. */
  checks: string[];
  tokens: TokenClaims;
  prompt: string[];
  /** flow eid: the upstream eID provider (an id under login.yaml's eid_upstreams). */
  upstream?: string;
  /** As sent (a second-factor login verifies the user it names). */
  loginHint?: string;
  /** Each acr_values value with the login.yaml declaration it matched. */
  acrValues: AcrValueExplained[];
}

export interface Refused {
  accepted: false;
  error: OAuthErrorCode;
  description: string;
  /** `page`: the client or redirect_uri cannot be trusted, so the browser sees an error page; else the error goes to redirect_uri. */
  shownAs: "page" | "redirect";
  redirectUri?: string;
  responseMode?: ResponseMode;
  /** Returned with the error, as sent. */
  state?: string;
}

export type Explanation = Accepted | Refused;

/**
 * What the server would do with one authorize request, before any user is involved: the server's own
 * steps in the server's order — checkClientAndRedirect, checkAuthorizeRequest, planAuthorization
 * (acr_values, the login plan, the MyVendor signature) — and the plan they lead to. No session: what a
 * session changes (step-up, prompt=none) is said in words by the formatter.
 */
export function explainAuthorizeRequest(policy: ExplainPolicy, raw: RawAuthorizeParams, variant: AuthorizeVariant): Explanation {
  let trusted: ReturnType<typeof checkClientAndRedirect>;
  try {
    trusted = checkClientAndRedirect(policy, raw);
  } catch (error) {
    if (error instanceof OAuthError) return { accepted: false, error: error.error, description: error.description, shownAs: "page" };
    throw error;
  }
  const { client, redirectUri, responseMode } = trusted;
  let request;
  let plan: LoginPlan;
  try {
    request = checkAuthorizeRequest(client, raw, { redirectUri, responseMode, framed: variant.framed, forcePrompt: variant.forcePrompt });
    plan = planAuthorization(policy.login, client, raw, request, variant.endpoint);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const state = stateToReturn(raw);
    return {
      accepted: false,
      error: error.error,
      description: error.description,
      shownAs: "redirect",
      redirectUri,
      responseMode,
      ...(state !== undefined && { state }),
    };
  }
  const checks = ["client_id and redirect_uri: registered (an error before this point is a page, never a redirect)"];
  if (plan.checkSignature)
    checks.push("signature: valid (SHA-1 of redirect_uri + login_hint + the client's signing key, compared in constant time)");
  if (plan.loginHint === "vendor") checks.push(`login_hint: names this client's account ${plan.vendorAccount}`);
  if (plan.loginHint === "required") checks.push("login_hint: present (it names the user the second factor verifies)");
  const methods = plan.methods.map((id) => ({ id, class: policy.login.methodClasses.get(id)!, amr: policy.amr.get(id) ?? id }));
  return {
    accepted: true,
    clientId: client.id,
    redirectUri,
    responseMode,
    plan,
    methods,
    checks,
    tokens: tokenClaimsOf(plan, methods),
    prompt: request.prompt,
    ...(plan.upstream !== undefined && { upstream: plan.upstream }),
    ...(request.loginHint !== undefined && { loginHint: request.loginHint }),
    acrValues: explainAcrValues(
      policy.login,
      raw.values.get("acr_values"),
      acrContext(policy.login, { endpoint: variant.endpoint, loginType: raw.values.get("login_type"), fa: raw.values.get("fa") }),
    ),
  };
}
