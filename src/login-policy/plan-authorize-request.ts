import { parseAcrValues, type AcrContext } from "./acr-values.ts";
import { EID_TYPE } from "./login-policy.ts";
import type { LoginPolicy } from "./login-policy.ts";
import { planLogin, type LoginRequest, type PlanResult, type SessionFacts } from "./plan-login.ts";
import { isVendorSignatureValid } from "./vendor-signature.ts";
import { type AcrLevel, minimumAcrOf, twoFactorTypeFor, withLoginType } from "./minimum-acr.ts";

/** The client as the plan reads it: its id, the login types it may use, its MyVendor signing key. */
export interface PlanningClient {
  id: string;
  /** clients.yaml `allowed_login_types`, lower-cased; absent: every declared type. */
  allowedLoginTypes?: ReadonlySet<string>;
  /** clients.yaml `signing_key` (MyVendor signatures). */
  signingKey?: string;
  /** clients.yaml `minimum_acr`: every login for the client must reach it. */
  minimumAcr?: AcrLevel;
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
  /** The claims parameter's acr request (OIDC Core §5.5.1.1): essential values the login must reach one of, else preferences. */
  acrClaim?: { essential: boolean; values: readonly string[] };
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
  // A claims request's acr values that are not essential are preferences, read after acr_values' own.
  const preferred = facts.acrClaim?.essential === false ? facts.acrClaim.values : [];
  const acrValues = [facts.acrValues ?? "", ...preferred].join(" ").trim();
  const acr = parseAcrValues(acrValues === "" ? undefined : acrValues, policy.acrValues, acrContext(facts));
  if (!acr.ok) return { ok: false, error: "invalid_request", description: acr.description };
  const needed = minimumAcrOf(client.minimumAcr, facts.acrClaim?.essential ? facts.acrClaim.values : undefined);
  if (!needed.ok) return unmet(needed.description);
  const minimum = needed.minimum;
  let requirements = acr.requirements;
  if (minimum?.value === "2fa" && facts.loginType === undefined && facts.endpoint !== "eid" && requirements.loginType === undefined) {
    // Only a two-factor flow reaches 2fa: a request that chooses no login type gets one, unless a value decides the verification itself.
    const type = requirements.alone === undefined ? twoFactorTypeFor(policy, client.allowedLoginTypes) : undefined;
    if (type === undefined) return unmet(`${minimum.by.join(" and ")} asks for 2fa, and no two-factor login can serve this request`);
    requirements = withLoginType(requirements, type, minimum.by.join(" and "));
  }
  const upstreamAsked = [facts.acrValues ?? "", ...(facts.acrClaim?.values ?? [])].join(" ").trim();
  const request: LoginRequest = {
    endpoint: facts.endpoint,
    clientId: client.id,
    ...(client.allowedLoginTypes && { allowedLoginTypes: client.allowedLoginTypes }),
    ...(facts.loginType !== undefined && { loginType: facts.loginType }),
    ...(facts.fa !== undefined && { fa: facts.fa }),
    acr: requirements,
    // What an eID login asks of its upstream: acr_values as sent, and the claims parameter's acr values after them.
    ...(upstreamAsked !== "" && { acrValues: upstreamAsked }),
    ...(facts.loginHint !== undefined && { loginHint: facts.loginHint }),
    scopes: facts.scopes,
    ...(facts.signature !== undefined && { signature: facts.signature }),
  };
  const planned = planLogin(policy, request, session);
  if (planned.ok && minimum !== undefined) {
    // The plan's flow decides the acr a login can reach: a request whose own choices stay below the minimum is not served a weaker login.
    // An eID login reaches what its upstream performed, known only at its end, where completeAuthorization holds it to the minimum.
    if (minimum.value === "2fa" && planned.plan.flow !== "two_factor" && planned.plan.flow !== "eid")
      return unmet(`${minimum.by.join(" and ")} asks for 2fa, which a ${planned.plan.flow} login cannot reach`);
    planned.plan.minimumAcr = minimum;
  }
  if (!planned.ok || !planned.plan.checkSignature) return planned;
  // The plan already required login_hint `<client_id>:<account>` and the signature parameter.
  const valid =
    client.signingKey !== undefined && isVendorSignatureValid(facts.signature!, facts.redirectUri, facts.loginHint!, client.signingKey);
  return valid
    ? planned
    : { ok: false, error: "invalid_request", description: "signature does not match redirect_uri and login_hint for this client" };
}

function unmet(description: string): PlanResult {
  return { ok: false, error: "unmet_authentication_requirements", description };
}
