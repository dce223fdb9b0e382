import { describe, expect, it } from "vitest";
import { acrValuesSupported, loginTypesSupported } from "../../src/login-policy/acr-values-supported.ts";
import type { LoginPolicy, LoginType } from "../../src/login-policy/login-policy.ts";

const mfaTotp: LoginType = { name: "MfaTotp", flow: "second_factor", methods: ["totp"], sso: false, loginHint: "required", repeatLoginTypeAtToken: true, signature: false, fa: false, enrollOnFirstUse: false };
const policy = (methods: string[], types: LoginType[]): LoginPolicy => ({
  methodClasses: new Map(methods.map((m) => [m, m === "totp" ? "untrusted" : "trusted"])),
  defaultMethods: methods,
  loginTypes: new Map(types.map((t) => [t.name.toLowerCase(), t])),
});

describe("acrValuesSupported", () => {
  it("lists 2fa only where a 2FA login type is declared, must_bfido only with the bfido method, the app's values only with its QR scan", () => {
    expect(acrValuesSupported(policy(["password", "totp"], [mfaTotp]))).toEqual(["1fa", "req_chnl", "chnl_info"]);
    const twoFactor: LoginType = { ...mfaTotp, name: "2FA", flow: "two_factor", methods: ["qrcode", "totp"], sso: true, loginHint: "optional", repeatLoginTypeAtToken: false, fa: true };
    expect(acrValuesSupported(policy(["qrcode", "totp"], [twoFactor]))).toEqual(["1fa", "2fa", "req_chnl", "chnl_info", "app_gps", "app_faceid"]);
    expect(acrValuesSupported(policy(["qrcode", "bfido", "totp"], [twoFactor]))).toEqual(["1fa", "2fa", "must_bfido", "req_chnl", "chnl_info", "app_gps", "app_faceid"]);
  });

  it("names the login types as login.yaml writes them", () => {
    expect(loginTypesSupported(policy(["totp"], [mfaTotp]))).toEqual(["MfaTotp"]);
  });
});
