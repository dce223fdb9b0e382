import type { LoginPolicy } from "./login-policy.ts";

/**
 * `acr_values_supported` of the discovery document (OIDC Discovery §3: the Authentication Context
 * Class References this OP supports). Two kinds share the list (docs/decisions.md, "acr_values in
 * discovery"): the acr claim's values (`1fa`, and `2fa` where a two-factor login type is declared), which a
 * client may also request, and the request values login.yaml declares under `acr_values`, as written
 * there (the cross-field rules made sure each names only what this deployment configures). The
 * parameterised forms (`2fa:<methods>`, `req_chnl:<id>`) are not values of their own, so they are not listed.
 */
export function acrValuesSupported(policy: LoginPolicy): string[] {
  const values = ["1fa"];
  if ([...policy.loginTypes.values()].some((type) => type.flow === "two_factor")) values.push("2fa");
  for (const declared of policy.acrValues.values()) {
    if (!values.includes(declared.name.toLowerCase())) values.push(declared.name);
  }
  return values;
}

/** `login_types_supported` (not an OIDC name: this provider's own metadata): the declared login types as written in login.yaml. */
export function loginTypesSupported(policy: LoginPolicy): string[] {
  return [...policy.loginTypes.values()].map((type) => type.name);
}
