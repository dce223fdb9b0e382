import { parseAcrValues, type AcrContext } from "./acr-values.ts";
import { EID_TYPE } from "./login-policy.ts";
import type { LoginPolicy } from "./login-policy.ts";
import { planLogin, type LoginRequest, type PlanResult, type SessionFacts } from "./plan-login.ts";
import { isVendorSignatureValid } from "./vendor-signature.ts";

/** The client as the plan reads it: its id, the login types it may use, its MyVendor signing key. */
export interface PlanningClient {
  id: string;
  /** clients.yaml `allowed_login_types`, lower-cased; absent: every declared type. */
  allowedLoginTypes?: ReadonlySet<string>;
  /** clients.yaml `signing_key` (MyVendor signatures). */
  signingKey?: string;
}

/** The authorize parameters the plan reads, once the protocol checks passed (redirect_uri is registered). */
export interface AuthorizeFacts {
  endpoint: LoginRequest["endpoint"];
  redirectUri: string;
  scopes: readonly string[];
  loginType?: string;
  fa?: string;
  acrValues?: string;
  loginHint?: string;
  signature?: string;
}

/**
 * What acr_values are read after: the request's own login_type (or the eID endpoint's type) and fa. A
 * value that contradicts them is set aside (acr_values are preferences), never an error.
 */
export function acrContext(facts: Pick<AuthorizeFacts, "endpoint" | "loginType" | "fa">): AcrContext {
  const loginType = facts.endpoint === "eid" ? EID_TYPE : facts.loginType?.toLowerCase();
  return { ...(loginType !== undefined && { loginType }), fa: facts.fa !== undefined };
}

/**
 * The login plan of an authorize request, as the server (and `portcullis policy explain`) makes it:
 * acr_values read, the plan made, and — for a login type that requires it — the MyVendor signature
 * checked before anything is shown. Never throws on any input.
 */
export function planAuthorizeRequest(
  policy: LoginPolicy,
  client: PlanningClient,
  facts: AuthorizeFacts,
  session?: SessionFacts,
): PlanResult {
  const acr = parseAcrValues(facts.acrValues, policy.acrValues, acrContext(facts));
  if (!acr.ok) return { ok: false, error: "invalid_request", description: acr.description };
  const request: LoginRequest = {
    endpoint: facts.endpoint,
    clientId: client.id,
    ...(client.allowedLoginTypes && { allowedLoginTypes: client.allowedLoginTypes }),
    ...(facts.loginType !== undefined && { loginType: facts.loginType }),
    ...(facts.fa !== undefined && { fa: facts.fa }),
    acr: acr.requirements,
    ...(facts.acrValues !== undefined && { acrValues: facts.acrValues }),
    ...(facts.loginHint !== undefined && { loginHint: facts.loginHint }),
    scopes: facts.scopes,
    ...(facts.signature !== undefined && { signature: facts.signature }),
  };
  const planned = planLogin(policy, request, session);
  if (!planned.ok || !planned.plan.checkSignature) return planned;
  // The plan already required login_hint `<client_id>:<account>` and the signature parameter.
  const valid =
    client.signingKey !== undefined && isVendorSignatureValid(facts.signature!, facts.redirectUri, facts.loginHint!, client.signingKey);
  return valid
    ? planned
    : { ok: false, error: "invalid_request", description: "signature does not match redirect_uri and login_hint for this client" };
}
