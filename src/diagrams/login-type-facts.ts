import type { LoginType } from "../login-policy/login-policy.ts";

/**
 * One fact of a login type's plan, as the diagrams show it beside the chart: a UI string naming it (with
 * its login.yaml key), and its value as a UI string or as configuration text (method and scope lists,
 * an upstream id). UI strings are `diagram.plan.*` in views/i18n.
 */
export interface PlanFact {
  labelKey: string;
  valueKey?: string;
  value?: string;
}

/**
 * What a login type's plan decides beyond its machine (src/login-policy): two login types can run one
 * flow — MyVendor and MfaTotp draw the same chart — and differ only here: the methods offered and
 * whether `fa` may choose them, SSO, the login_hint rule, the signature, the scopes it allows,
 * login_type repeated at the token endpoint, first-use enrollment, and an eID login type's upstream.
 */
export function loginTypeFacts(type: LoginType): PlanFact[] {
  const methodFacts: PlanFact[] =
    type.flow === "eid"
      ? [{ labelKey: "diagram.plan.upstream", value: type.upstream ?? "" }]
      : [
          { labelKey: "diagram.plan.methods", value: type.methods.join(", ") },
          { labelKey: "diagram.plan.fa", valueKey: `diagram.plan.fa.${type.fa}` },
        ];
  return [
    ...methodFacts,
    { labelKey: "diagram.plan.sso", valueKey: `diagram.plan.sso.${type.sso}` },
    { labelKey: "diagram.plan.login_hint", valueKey: `diagram.plan.login_hint.${type.loginHint}` },
    { labelKey: "diagram.plan.signature", valueKey: `diagram.plan.signature.${type.signature}` },
    type.scopes === undefined
      ? { labelKey: "diagram.plan.scopes", valueKey: "diagram.plan.scopes.client" }
      : { labelKey: "diagram.plan.scopes", value: [...type.scopes].join(" ") },
    { labelKey: "diagram.plan.repeat_login_type", valueKey: `diagram.plan.repeat_login_type.${type.repeatLoginTypeAtToken}` },
    { labelKey: "diagram.plan.enroll_on_first_use", valueKey: `diagram.plan.enroll_on_first_use.${type.enrollOnFirstUse}` },
  ];
}
