import { OAuthError, type OAuthErrorCode } from "../../errors/oauth-error.ts";
import { checkAuthorizeRequest, checkClientAndRedirect, stateToReturn, type RawAuthorizeParams } from "../../http/authorize/authorize-params.ts";
import { parseAcrValues } from "../../login-policy/acr-values.ts";
import type { LoginPolicy, MethodClass } from "../../login-policy/login-policy.ts";
import { planLogin, type LoginPlan, type LoginRequest } from "../../login-policy/plan-login.ts";
import { isVendorSignatureValid } from "../../login-policy/vendor-signature.ts";
import type { ResponseMode } from "../../oauth/authorization-request.ts";
import type { Client, ClientRegistry } from "../../oauth/client-registry.ts";
import { tokenClaimsOf, type TokenClaims } from "./token-claims-of.ts";

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
 * What the server would do with one authorize request, before any user is involved: the same checks
 * in the same order (client and redirect_uri, the protocol parameters, acr_values, the login plan, the
 * MyVendor signature), each by the function the server runs, and the plan they lead to.
 */
export function explainAuthorizeRequest(policy: ExplainPolicy, raw: RawAuthorizeParams, variant: AuthorizeVariant): Explanation {
  let trusted: ReturnType<typeof checkClientAndRedirect>;
  try {
    trusted = checkClientAndRedirect({ policy }, raw);
  } catch (error) {
    if (error instanceof OAuthError) return { accepted: false, error: error.error, description: error.description, shownAs: "page" };
    throw error;
  }
  const { client, redirectUri, responseMode } = trusted;
  const refuse = (error: OAuthErrorCode, description: string): Refused => ({ accepted: false, error, description, shownAs: "redirect", redirectUri, responseMode, ...(stateToReturn(raw) !== undefined && { state: stateToReturn(raw) }) });
  let request;
  try {
    request = checkAuthorizeRequest(client, protocolParams(raw), { redirectUri, responseMode, framed: variant.framed, forcePrompt: variant.forcePrompt });
  } catch (error) {
    if (error instanceof OAuthError) return refuse(error.error, error.description);
    throw error;
  }
  const get = (name: string) => raw.values.get(name);
  const acr = parseAcrValues(get("acr_values"));
  if (!acr.ok) return refuse("invalid_request", acr.description);
  const loginRequest: LoginRequest = {
    endpoint: variant.endpoint,
    clientId: client.id,
    ...(client.config.allowed_login_types && { allowedLoginTypes: new Set(client.config.allowed_login_types.map((t) => t.toLowerCase())) }),
    ...optional("loginType", get("login_type")),
    ...optional("fa", get("fa")),
    acr: acr.requirements,
    ...optional("loginHint", request.loginHint),
    scopes: request.scopes,
    ...optional("signature", get("signature")),
  };
  const planned = planLogin(policy.login, loginRequest);
  if (!planned.ok) return refuse(planned.error, planned.description);
  const { plan } = planned;
  const checks = ["client_id and redirect_uri: registered (an error before this point is a page, never a redirect)"];
  if (plan.checkSignature) {
    const problem = signatureProblem(client, redirectUri, request.loginHint!, get("signature")!);
    if (problem !== undefined) return refuse("invalid_request", problem);
    checks.push("signature: valid (SHA-1 of redirect_uri + login_hint + the client's signing key, compared in constant time)");
  }
  if (plan.loginHint === "vendor") checks.push(`login_hint: names this client's account ${plan.vendorAccount}`);
  if (plan.loginHint === "required") checks.push("login_hint: present (it names the user the second factor verifies)");
  const upstream = plan.loginType === undefined ? undefined : policy.login.loginTypes.get(plan.loginType.toLowerCase())?.upstream;
  const methods = plan.methods.map((id) => ({ id, class: policy.login.methodClasses.get(id)!, amr: policy.amr.get(id) ?? id }));
  return { accepted: true, clientId: client.id, redirectUri, responseMode, plan, methods, checks, tokens: tokenClaimsOf(plan, methods), prompt: request.prompt, ...optional("upstream", upstream), ...optional("loginHint", request.loginHint) };
}

/**
 * The parameters the server's protocol check reads. SEAM: checkAuthorizeRequest still refuses
 * login_type and the spec's acr_values until the login plan is wired into /connect/authorize; here
 * they go to parseAcrValues and planLogin instead, as they will there. Once the server's check
 * accepts them, pass `raw` as it is and delete this.
 */
function protocolParams(raw: RawAuthorizeParams): RawAuthorizeParams {
  const values = new Map(raw.values);
  values.delete("login_type");
  values.delete("acr_values");
  return { values, repeated: raw.repeated };
}

/** Why the MyVendor signature is refused, if it is. */
function signatureProblem(client: Client, redirectUri: string, loginHint: string, signature: string): string | undefined {
  const key = client.config.signing_key;
  if (key === undefined) return "this client has no signing key, so its signature cannot be checked";
  return isVendorSignatureValid(signature, redirectUri, loginHint, key) ? undefined : "signature is not valid for this redirect_uri and login_hint";
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
