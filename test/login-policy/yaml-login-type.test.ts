import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { parseAcrValues } from "../../src/login-policy/acr-values.ts";
import { buildLoginPolicy } from "../../src/login-policy/build-login-policy.ts";
import { planLogin } from "../../src/login-policy/plan-login.ts";
import { loadMethodPlugins } from "../../src/runtime/method-plugins.ts";
import { copyConfig } from "../support/test-provider.ts";

/** docs/login-policy.md's worked example: a login type added to login.yaml, and nothing else. */
const MFA_FACE = {
  flow: "second_factor",
  methods: ["face"],
  fa: false,
  sso: false,
  login_hint: "required",
  repeat_login_type_at_token: true,
};
const configDir = copyConfig({ "login.yaml": { "login_types.MfaFace": MFA_FACE } });
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

describe("a login type added with YAML only", () => {
  it("loads, and the login plan runs it: the face method alone, for the login_hint's user, no SSO, login_type repeated at the token endpoint", async () => {
    const config = await loadInstalledConfig(configDir, {});
    const methods = await loadMethodPlugins(config.login, config.dir);
    const policy = buildLoginPolicy(config.login, new Map([...methods].map(([id, m]) => [id, m.plugin.class])));
    const acr = parseAcrValues(undefined, policy.acrValues);
    if (!acr.ok) throw new Error(acr.description);
    const request = {
      endpoint: "authorize" as const,
      clientId: "demo-web",
      loginType: "MfaFace",
      loginHint: "alice",
      scopes: ["openid"],
      acr: acr.requirements,
    };
    expect(planLogin(policy, request)).toEqual({
      ok: true,
      plan: {
        loginType: "MfaFace",
        loginTypeName: "MfaFace",
        flow: "second_factor",
        methods: ["face"],
        missingClasses: [],
        sso: { use: false, create: false },
        loginHint: "required",
        checkSignature: false,
        repeatLoginTypeAtToken: true,
        sessionSuffices: false,
        enrollOnFirstUse: false,
        acrMatched: [],
        claims: { channelInfo: false, gps: false, faceid: false },
      },
    });
    expect(planLogin(policy, { ...request, fa: "face" })).toEqual({
      ok: false,
      error: "invalid_request",
      description: "login_type MfaFace fixes its methods: fa cannot choose them",
    });
    expect(planLogin(policy, { ...request, loginHint: undefined })).toEqual({
      ok: false,
      error: "invalid_request",
      description: "login_type MfaFace needs login_hint",
    });
  });
});
