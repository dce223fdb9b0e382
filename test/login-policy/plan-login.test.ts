import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAcrValues, type AcrRequirements } from "../../src/login-policy/acr-values.ts";
import type { LoginPolicy, MethodClass } from "../../src/login-policy/login-policy.ts";
import { DEMO_METHOD_CLASSES, LOGIN_TYPE_METHODS, loginTypeEntry } from "../support/login-policy-fixture.ts";
import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";
import { planLogin, type LoginRequest, type PlanResult } from "../../src/login-policy/plan-login.ts";

/** The methods a login type may list, by class (bfido, which none offers, aside). */
const CLASSES: Record<string, MethodClass> = Object.fromEntries(LOGIN_TYPE_METHODS.map((m) => [m, DEMO_METHOD_CLASSES[m]!]));
const ALL = [...LOGIN_TYPE_METHODS];
const loginType = loginTypeEntry;

const POLICY: LoginPolicy = {
  methodClasses: new Map(Object.entries(DEMO_METHOD_CLASSES)),
  defaultMethods: ["qrcode", "password", "appotp"],
  loginTypes: new Map([
    loginType("2FA", "two_factor", ALL),
    loginType("Mfa", "second_factor", ["appotp", "qrcode", "totp", "fido", "email", "sms"]),
    loginType("MfaTotp", "second_factor", ["totp"], { fa: false }),
    loginType("MyVendor", "second_factor", ["totp"], {
      loginHint: "vendor",
      signature: true,
      scopes: new Set(["openid", "profile"]),
      enrollOnFirstUse: true,
      fa: false,
    }),
    loginType("eID", "eid", [], { repeatLoginTypeAtToken: true }),
  ]),
  acrValues: DEMO_ACR_VALUES,
};

function acr(value?: string): AcrRequirements {
  const parsed = parseAcrValues(value, DEMO_ACR_VALUES);
  if (!parsed.ok) throw new Error(parsed.description);
  return parsed.requirements;
}

const request = (overrides: Partial<Omit<LoginRequest, "acr">> & { acrValues?: string } = {}): LoginRequest => {
  const { acrValues, ...rest } = overrides;
  return { endpoint: "authorize", clientId: "demo-web", scopes: ["openid", "profile"], acr: acr(acrValues), ...rest };
};

function plan(result: PlanResult) {
  if (!result.ok) throw new Error(`refused: ${result.error} ${result.description}`);
  return result.plan;
}
function refusal(result: PlanResult) {
  return result.ok ? "planned" : `${result.error}: ${result.description}`;
}

describe("planLogin", () => {
  it("runs the default single-factor flow with SSO when the request names no login type", () => {
    const p = plan(planLogin(POLICY, request()));
    expect(p).toMatchObject({
      flow: "single_factor",
      methods: ["qrcode", "password", "appotp"],
      sso: { use: true, create: true },
      repeatLoginTypeAtToken: false,
    });
    expect(p.loginType).toBeUndefined();
  });

  it("plans a 2FA login with every method offered, both classes missing, full SSO, and login_type returned", () => {
    expect(plan(planLogin(POLICY, request({ loginType: "2FA" })))).toMatchObject({
      loginType: "2FA",
      flow: "two_factor",
      methods: ALL,
      missingClasses: ["trusted", "untrusted"],
      sso: { use: true, create: true },
    });
  });

  it("takes acr_values 2fa as login_type 2FA, and 2fa:<methods> as fa", () => {
    const p = plan(planLogin(POLICY, request({ acrValues: "2fa:totp,password" })));
    expect(p).toMatchObject({ flow: "two_factor", methods: ["totp", "password"] });
    expect(p.loginType).toBeUndefined();
  });

  it("takes acr_values 2FA, in any case, as the same two-factor login: never the weaker default", () => {
    for (const value of ["2FA", "2Fa", "2FA:totp"])
      expect(plan(planLogin(POLICY, request({ acrValues: value })))).toMatchObject({
        flow: "two_factor",
        missingClasses: ["trusted", "untrusted"],
      });
    expect(plan(planLogin(POLICY, request({ acrValues: "2FA" }))).acrMatched).toEqual([{ sent: "2FA", declared: "2fa" }]);
  });

  it("matches login_type without regard to case and returns it as sent", () => {
    expect(plan(planLogin(POLICY, request({ loginType: "2fa" }))).loginType).toBe("2fa");
  });

  it("lets fa choose and order a 2FA login's methods; a class fa names none of keeps all of the type's", () => {
    expect(plan(planLogin(POLICY, request({ loginType: "2FA", fa: "fido/qrcode" }))).methods).toEqual(["fido", "qrcode"]);
    // Only trusted methods named: every untrusted method of the type follows them.
    expect(plan(planLogin(POLICY, request({ loginType: "2FA", fa: "qrcode,password" }))).methods).toEqual([
      "qrcode",
      "password",
      "totp",
      "fido",
      "sms",
      "email",
      "face",
    ]);
  });

  it("reads 2fa:<methods> as the second verification's methods: 2fa:totp is any trusted method, then TOTP", () => {
    const p = plan(planLogin(POLICY, request({ acrValues: "2fa:totp" })));
    expect(p).toMatchObject({ flow: "two_factor", missingClasses: ["trusted", "untrusted"] });
    expect(p.methods).toEqual(["qrcode", "appotp", "password", "totp"]);
    // A password session steps up with TOTP alone.
    expect(plan(planLogin(POLICY, request({ acrValues: "2fa:totp" }), { methods: ["password"] })).methods).toEqual(["totp"]);
  });

  it("steps up a one-factor session: only the missing class is asked for", () => {
    const p = plan(planLogin(POLICY, request({ acrValues: "2fa" }), { methods: ["password"] }));
    expect(p.missingClasses).toEqual(["untrusted"]);
    expect(p.methods).toEqual(["totp", "fido", "sms", "email", "face"]);
  });

  it("asks for nothing when the session already has a method of each class", () => {
    expect(plan(planLogin(POLICY, request({ loginType: "2FA" }), { methods: ["qrcode", "totp"] }))).toMatchObject({
      missingClasses: [],
      methods: [],
    });
  });

  it("plans Mfa without SSO, with login_hint required and login_type repeated at the token endpoint", () => {
    expect(plan(planLogin(POLICY, request({ loginType: "Mfa", loginHint: "alice" }), { methods: ["qrcode", "totp"] }))).toMatchObject({
      flow: "second_factor",
      methods: ["appotp", "qrcode", "totp", "fido", "email", "sms"],
      sso: { use: false, create: false },
      repeatLoginTypeAtToken: true,
    });
    expect(refusal(planLogin(POLICY, request({ loginType: "Mfa" })))).toBe("invalid_request: login_type Mfa needs login_hint");
  });

  it("keeps a fixed Mfa variant's method: fa cannot change it", () => {
    expect(plan(planLogin(POLICY, request({ loginType: "MfaTotp", loginHint: "alice" }))).methods).toEqual(["totp"]);
    expect(refusal(planLogin(POLICY, request({ loginType: "MfaTotp", loginHint: "alice", fa: "sms" })))).toMatch(/fixes its methods/);
  });

  it("plans MyVendor: vendor login_hint of this client, signature required, scope limited", () => {
    const vendor = { loginType: "MyVendor", loginHint: "demo-web:acct-7", signature: "ab12" };
    expect(plan(planLogin(POLICY, request(vendor)))).toMatchObject({
      vendorAccount: "demo-web:acct-7",
      checkSignature: true,
      enrollOnFirstUse: true,
      sso: { use: false, create: false },
    });
    expect(refusal(planLogin(POLICY, request({ ...vendor, loginHint: "other-client:acct-7" })))).toMatch(
      /invalid_request: .*<client_id>:<account> naming this client/,
    );
    expect(refusal(planLogin(POLICY, request({ ...vendor, loginHint: "demo-web:" })))).toMatch(/naming this client/);
    expect(refusal(planLogin(POLICY, request({ ...vendor, signature: undefined })))).toMatch(/needs the signature parameter/);
    expect(refusal(planLogin(POLICY, request({ ...vendor, scopes: ["openid", "profile", "acme"] })))).toMatch(
      /^invalid_scope: login_type MyVendor allows only the scopes openid profile/,
    );
  });

  it("serves eID at /eID/authorize, where login_type may be omitted, and at /connect/authorize with login_type eID", () => {
    expect(plan(planLogin(POLICY, request({ endpoint: "eid" })))).toMatchObject({
      flow: "eid",
      loginType: "eID",
      repeatLoginTypeAtToken: true,
    });
    expect(plan(planLogin(POLICY, request({ loginType: "eID" })))).toMatchObject({
      flow: "eid",
      loginType: "eID",
      repeatLoginTypeAtToken: true,
    });
    expect(refusal(planLogin(POLICY, request({ endpoint: "eid", loginType: "2FA" })))).toMatch(/serves login_type eID only/);
  });

  it("enforces the client's allowed_login_types with unauthorized_client", () => {
    expect(refusal(planLogin(POLICY, request({ loginType: "Mfa", loginHint: "a", allowedLoginTypes: new Set(["2fa"]) })))).toMatch(
      /^unauthorized_client: this client may not use login_type Mfa/,
    );
    expect(refusal(planLogin(POLICY, request({ acrValues: "2fa", allowedLoginTypes: new Set(["myvendor"]) })))).toMatch(
      /^unauthorized_client: this client may not use login_type 2FA/,
    );
  });

  it("restricts the default login too: a client limited to login types may not start one without a login type unless it lists default", () => {
    const vendorOnly = { allowedLoginTypes: new Set(["myvendor"]) };
    expect(refusal(planLogin(POLICY, request(vendorOnly)))).toBe(
      "unauthorized_client: this client may use only login_type MyVendor: name one",
    );
    expect(refusal(planLogin(POLICY, request({ ...vendorOnly, acrValues: "req_chnl" })))).toMatch(
      /^unauthorized_client: this client may use only login_type MyVendor/,
    );
    expect(plan(planLogin(POLICY, request({ allowedLoginTypes: new Set(["myvendor", "default"]) }))).flow).toBe("single_factor");
  });

  it("runs must_bfido as the trusted app's FIDO2 alone; only a session that passed it suffices", () => {
    expect(plan(planLogin(POLICY, request({ acrValues: "must_bfido" })))).toMatchObject({
      flow: "single_factor",
      methods: ["bfido"],
      requiredMethods: ["bfido"],
      acrMatched: [{ sent: "must_bfido", declared: "must_bfido" }],
    });
    expect(plan(planLogin(POLICY, request({ acrValues: "must_bfido" }), { methods: ["qrcode"] })).sessionSuffices).toBe(false);
    expect(plan(planLogin(POLICY, request({ acrValues: "must_bfido" }), { methods: ["bfido"] })).sessionSuffices).toBe(true);
  });

  it("narrows to the trusted app's scan for app_gps: the trusted class of a 2FA login, every method of the default login; never from a session", () => {
    expect(plan(planLogin(POLICY, request({ acrValues: "app_gps" }), { methods: ["qrcode"] }))).toMatchObject({
      methods: ["qrcode"],
      sessionSuffices: false,
    });
    expect(plan(planLogin(POLICY, request({ acrValues: "2fa app_faceid" }))).methods).toEqual([
      "qrcode",
      "totp",
      "fido",
      "sms",
      "email",
      "face",
    ]);
    expect(plan(planLogin(POLICY, request({ acrValues: "2fa app_gps" }), { methods: ["qrcode", "totp"] })).sessionSuffices).toBe(false);
    expect(refusal(planLogin(POLICY, request({ loginType: "MfaTotp", loginHint: "a", acrValues: "app_gps" })))).toBe(
      "invalid_request: acr_values app_gps needs qrcode, which login_type MfaTotp does not offer here",
    );
  });

  it.each([
    [{ loginType: "Nope" }, /login_type Nope is not declared/],
    [{ loginType: "Mfa", loginHint: "a", acrValues: "2fa" }, /cannot be combined with login_type Mfa/],
    [{ loginType: "2FA", acrValues: "must_bfido" }, /must_bfido cannot be combined with login_type or fa/],
    [{ fa: "totp", acrValues: "must_bfido" }, /must_bfido cannot be combined with login_type or fa/],
    [{ fa: "totp" }, /fa chooses methods for login_type 2FA or Mfa/],
    [{ loginType: "2FA", fa: "totp,nope" }, /does not offer the method 'nope'/],
    [{ loginType: "2FA", fa: "totp,,qrcode" }, /empty method name/],
    [{ loginType: "2FA", fa: "totp,totp" }, /'totp' twice/],
    [{ loginType: "2FA", fa: "totp", acrValues: "2fa:totp,qrcode" }, /cannot both choose the methods/],
  ])("refuses contradictions and unknowns: %j", (overrides, description) => {
    expect(refusal(planLogin(POLICY, request(overrides)))).toMatch(description);
  });

  it("carries the acr claims into the plan", () => {
    expect(plan(planLogin(POLICY, request({ acrValues: "req_chnl:c1 chnl_info app_gps app_faceid" }))).claims).toEqual({
      channel: { id: "c1" },
      channelInfo: true,
      gps: true,
      faceid: true,
    });
  });

  it("property: a 2FA plan's methods plus the session's cover both classes, and offer nothing of a class the session has among the acceptable methods", () => {
    fc.assert(
      fc.property(fc.subarray(ALL), fc.option(fc.shuffledSubarray(ALL, { minLength: 2 }), { nil: undefined }), (sessionMethods, fa) => {
        const result = planLogin(POLICY, request({ loginType: "2FA", ...(fa && { fa: fa.join(",") }) }), { methods: sessionMethods });
        // Never refused: a class fa names no method of keeps all of the type's.
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        // fa (2fa:<methods>) names the acceptable methods of the classes it names: a session method outside them does not count.
        const named = fa ?? ALL;
        const namedClasses = new Set(named.map((m) => CLASSES[m]));
        const acceptable = ALL.filter((m) => named.includes(m) || !namedClasses.has(CLASSES[m]));
        const sessionClasses = new Set(sessionMethods.filter((m) => acceptable.includes(m)).map((m) => CLASSES[m]));
        for (const m of result.plan.methods) expect(sessionClasses.has(CLASSES[m]!)).toBe(false);
        const offeredClasses = new Set(result.plan.methods.map((m) => CLASSES[m]));
        for (const c of ["trusted", "untrusted"] as const) expect(sessionClasses.has(c) || offeredClasses.has(c)).toBe(true);
      }),
    );
  });

  it("property: never throws on any login_type, fa, login_hint and acr_values", () => {
    fc.assert(
      fc.property(
        fc.option(fc.string()),
        fc.option(fc.string()),
        fc.option(fc.string()),
        fc.string(),
        (loginType, fa, loginHint, acrValues) => {
          const parsed = parseAcrValues(acrValues, DEMO_ACR_VALUES);
          if (!parsed.ok) return;
          planLogin(POLICY, {
            endpoint: "authorize",
            clientId: "demo-web",
            scopes: ["openid"],
            acr: parsed.requirements,
            ...(loginType !== null && { loginType }),
            ...(fa !== null && { fa }),
            ...(loginHint !== null && { loginHint }),
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("buildLoginPolicy", () => {
  it("builds the demo's policy: every declared type by lower-cased name, with the schema's defaults", async () => {
    const { loadInstalledConfig } = await import("../../src/extensions/installed-extensions.ts");
    const { buildLoginPolicy } = await import("../../src/login-policy/build-login-policy.ts");
    const config = await loadInstalledConfig(new URL("../../config/", import.meta.url).pathname);
    const policy = buildLoginPolicy(config.login, new Map(Object.entries(CLASSES)));
    expect([...policy.loginTypes.keys()]).toEqual([
      "2fa",
      "mfa",
      "mfaacmeotp",
      "mfascan",
      "mfatotp",
      "mfafido",
      "mfamail",
      "mfasms",
      "mfaacmeapp",
      "myvendor",
      "eid",
    ]);
    expect(policy.loginTypes.get("2fa")).toMatchObject({
      name: "2FA",
      flow: "two_factor",
      sso: true,
      loginHint: "optional",
      repeatLoginTypeAtToken: false,
      fa: true,
    });
    expect(policy.loginTypes.get("myvendor")).toMatchObject({
      loginHint: "vendor",
      signature: true,
      sso: false,
      scopes: new Set(["openid", "profile"]),
      enrollOnFirstUse: false,
    });
    // The demo's policy plans MfaTotp like the hand-written one above.
    expect(plan(planLogin(policy, request({ loginType: "MfaTotp", loginHint: "alice" })))).toMatchObject({
      methods: ["totp"],
      sso: { use: false, create: false },
      repeatLoginTypeAtToken: true,
    });
  });

  it("refuses a two-factor login type that offers no method of some class", async () => {
    const { buildLoginPolicy } = await import("../../src/login-policy/build-login-policy.ts");
    const login = {
      methods: { password: {}, qrcode: {} },
      default_flow: { methods: ["password"] },
      login_types: {
        "2FA": {
          flow: "two_factor" as const,
          methods: ["password", "qrcode"],
          sso: true,
          login_hint: "optional" as const,
          repeat_login_type_at_token: false,
          signature: false,
          fa: true,
          enroll_on_first_use: false,
        },
      },
    };
    expect(() => buildLoginPolicy(login, new Map(Object.entries(CLASSES)))).toThrow(
      /login_types\.2FA: a two_factor login type must offer a untrusted method/,
    );
  });
});
