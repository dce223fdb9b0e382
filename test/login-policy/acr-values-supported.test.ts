import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";
import { describe, expect, it } from "vitest";
import { acrValuesSupported, loginTypesSupported } from "../../src/login-policy/acr-values-supported.ts";
import type { LoginPolicy, LoginType } from "../../src/login-policy/login-policy.ts";

const mfaTotp: LoginType = {
  name: "MfaTotp",
  flow: "second_factor",
  methods: ["totp"],
  sso: false,
  loginHint: "required",
  repeatLoginTypeAtToken: true,
  signature: false,
  fa: false,
  enrollOnFirstUse: false,
};
const policy = (methods: string[], types: LoginType[]): LoginPolicy => ({
  methodClasses: new Map(methods.map((m) => [m, m === "totp" ? "untrusted" : "trusted"])),
  defaultMethods: methods,
  loginTypes: new Map(types.map((t) => [t.name.toLowerCase(), t])),
  acrValues: DEMO_ACR_VALUES,
});

describe("acrValuesSupported", () => {
  it("lists the acr claim's values (2fa only where a two-factor login type is declared), then the declared request values as login.yaml writes them", () => {
    expect(acrValuesSupported(policy(["password", "totp"], [mfaTotp]))).toEqual([
      "1fa",
      "2fa",
      "must_bfido",
      "req_chnl",
      "chnl_info",
      "app_gps",
      "app_faceid",
    ]);
    const twoFactor: LoginType = {
      ...mfaTotp,
      name: "2FA",
      flow: "two_factor",
      methods: ["qrcode", "totp"],
      sso: true,
      loginHint: "optional",
      repeatLoginTypeAtToken: false,
      fa: true,
    };
    expect(acrValuesSupported({ ...policy(["qrcode", "totp"], [twoFactor]), acrValues: new Map() })).toEqual(["1fa", "2fa"]);
    const gold = { name: "Gold", alone: false, channel: false, claims: [] };
    expect(acrValuesSupported({ ...policy(["qrcode", "totp"], [mfaTotp]), acrValues: new Map([["gold", gold]]) })).toEqual(["1fa", "Gold"]);
  });

  it("names the login types as login.yaml writes them", () => {
    expect(loginTypesSupported(policy(["totp"], [mfaTotp]))).toEqual(["MfaTotp"]);
  });
});
