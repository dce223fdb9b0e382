import type { LoginType, MethodClass } from "../../src/login-policy/login-policy.ts";

/** The demo's factor methods by class: bfido is the trusted app's FIDO2, configured but offered by no login type. */
export const DEMO_METHOD_CLASSES: Readonly<Record<string, MethodClass>> = {
  qrcode: "trusted",
  appotp: "trusted",
  password: "trusted",
  totp: "untrusted",
  fido: "untrusted",
  sms: "untrusted",
  email: "untrusted",
  face: "untrusted",
  bfido: "trusted",
};

/** The methods a login type of the demo may list: all but bfido. */
export const LOGIN_TYPE_METHODS: readonly string[] = Object.keys(DEMO_METHOD_CLASSES).filter((method) => method !== "bfido");

/**
 * A login type as buildLoginPolicy makes it from login.yaml (keyed by its lower-cased name), with the
 * schema's defaults for its flow: a second factor needs a login_hint and keeps no SSO; `rules` overrides.
 */
export function loginTypeEntry(
  name: string,
  flow: LoginType["flow"],
  methods: string[],
  rules: Partial<LoginType> = {},
): [string, LoginType] {
  const secondFactor = flow === "second_factor";
  return [
    name.toLowerCase(),
    {
      name,
      flow,
      methods,
      sso: !secondFactor,
      loginHint: secondFactor ? "required" : "optional",
      repeatLoginTypeAtToken: flow !== "two_factor",
      signature: false,
      fa: true,
      enrollOnFirstUse: false,
      ...rules,
    },
  ];
}
