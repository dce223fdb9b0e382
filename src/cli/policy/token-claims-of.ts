import type { LoginPlan } from "../../login-policy/plan-login.ts";
import type { MethodClass } from "../../login-policy/login-policy.ts";

/** What a login by this plan puts into its tokens (DESIGN "Decisions where the spec is silent"). */
export interface TokenClaims {
  /** In the ID token and the access token: the amr values of the methods passed, and `mfa` after two classes. */
  amr: string;
  /** In both tokens: `2fa` when a method of each class was passed, else `1fa`; an eID login's says what its upstream performed. */
  acr: string;
  /** The extra claims acr_values asked for, in the ID token and the access token, each with where its value comes from. */
  loginClaims: Record<string, string>;
  /** Sent to redirect_uri with the code (the login type as the request named it). */
  loginTypeWithCode?: string;
  /** The sub of the tokens when the plan fixes it (a vendor account). */
  sub?: string;
}

const EID_ACR =
  "what the upstream eID provider performed, as login.yaml's eid_upstreams.<id>.acr.performed maps its acr (1fa when it maps none), never what was asked";

/** The claims a login by `plan` gives, from the methods it offers (with their class and amr). */
export function tokenClaimsOf(plan: LoginPlan, methods: ReadonlyArray<{ class: MethodClass; amr: string }>): TokenClaims {
  const amrOf = (c: MethodClass) => methods.filter((m) => m.class === c).map((m) => m.amr);
  const oneOf = (values: string[]) => (values.length === 1 ? values[0]! : `one of ${values.join("|")}`);
  const twoFactor = plan.flow === "two_factor";
  let amr: string;
  if (plan.flow === "eid") amr = "[eid]";
  else if (!twoFactor) amr = `[${oneOf(methods.map((m) => m.amr))}]`;
  else if (plan.missingClasses.length === 2) amr = `[${oneOf(amrOf("trusted"))}, ${oneOf(amrOf("untrusted"))}, mfa] (in the order passed)`;
  else amr = `the session's methods + [${oneOf(methods.map((m) => m.amr))}], mfa`;
  const loginClaims: Record<string, string> = {};
  if (plan.claims.channel)
    loginClaims.chnl =
      plan.claims.channel.id === undefined ? "the channel the user administers (chosen on a page when several)" : plan.claims.channel.id;
  if (plan.claims.channelInfo) Object.assign(loginClaims, { chnl_name: "the channel's name", chnl_icon: "the channel's icon URL" });
  if (plan.claims.gps) loginClaims.gps = "{lat, lnt, time} from the trusted app's signed assertion";
  if (plan.claims.faceid) loginClaims.faceid = "{result, key, time} from the trusted app's face check";
  return {
    amr,
    acr: plan.flow === "eid" ? EID_ACR : twoFactor ? "2fa" : "1fa",
    loginClaims,
    ...(plan.loginType !== undefined && { loginTypeWithCode: plan.loginType }),
    ...(plan.vendorAccount !== undefined && { sub: plan.vendorAccount }),
  };
}
