import { BFIDO_METHOD, TWO_FACTOR_TYPE, type LoginPolicy } from "./login-policy.ts";

/** The trusted app's QR scan: app_gps and app_faceid are attested through it. */
const TRUSTED_APP_METHOD = "qrcode";

/**
 * `acr_values_supported` of the discovery document (OIDC Discovery §3: the Authentication Context
 * Class References this OP supports). Two kinds share the list (docs/decisions.md, "acr_values in
 * discovery"): the acr claim's values (`1fa`, and `2fa` where a 2FA login type is declared), which a
 * client may also request, and the spec's request values this deployment serves: the channel values
 * always (channels.yaml has a directory in every deployment), `must_bfido` where the bfido method is
 * configured, `app_gps` and `app_faceid` where the trusted app's QR scan is. The parameterised forms (`2fa:<methods>`, `req_chnl:<id>`) are not values of
 * their own, so they are not listed.
 */
export function acrValuesSupported(policy: LoginPolicy): string[] {
  const values = ["1fa"];
  if (policy.loginTypes.has(TWO_FACTOR_TYPE)) values.push("2fa");
  if (policy.methodClasses.has(BFIDO_METHOD)) values.push("must_bfido");
  values.push("req_chnl", "chnl_info");
  if (policy.methodClasses.has(TRUSTED_APP_METHOD)) values.push("app_gps", "app_faceid");
  return values;
}

/** `login_types_supported` (not an OIDC name: this provider's own metadata): the declared login types as written in login.yaml. */
export function loginTypesSupported(policy: LoginPolicy): string[] {
  return [...policy.loginTypes.values()].map((type) => type.name);
}
