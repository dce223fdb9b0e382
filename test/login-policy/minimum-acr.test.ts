import { describe, expect, it } from "vitest";
import type { LoginPolicy } from "../../src/login-policy/login-policy.ts";
import { acrRank, belowMinimum, meetsMinimum, minimumAcrOf, requiredAcr } from "../../src/login-policy/minimum-acr.ts";
import { planAuthorizeRequest, type AuthorizeFacts, type PlanningClient } from "../../src/login-policy/plan-authorize-request.ts";
import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";
import type { ClientConfig } from "../../src/config/types.generated.ts";
import { ClientRegistry } from "../../src/oauth/client-registry.ts";
import { readAuthorizeParams } from "../../src/http/authorize/authorize-params.ts";
import { explainAuthorizeRequest } from "../../src/cli/policy/explain-authorize-request.ts";
import { formatExplanation } from "../../src/cli/policy/format-explanation.ts";
import { DEMO_METHOD_CLASSES, LOGIN_TYPE_METHODS, loginTypeEntry } from "../support/login-policy-fixture.ts";

/**
 * What a login must reach (a client's minimum_acr, an essential acr of the claims parameter) and how the
 * plan meets it: a two-factor login type for 2fa, or unmet_authentication_requirements, never a weaker login.
 */
const POLICY: LoginPolicy = {
  methodClasses: new Map(Object.entries(DEMO_METHOD_CLASSES)),
  defaultMethods: ["qrcode", "password", "appotp"],
  loginTypes: new Map([
    loginTypeEntry("2FA", "two_factor", [...LOGIN_TYPE_METHODS]),
    loginTypeEntry("MfaTotp", "second_factor", ["totp"], { fa: false }),
    loginTypeEntry("eID", "eid", [], { repeatLoginTypeAtToken: true }),
  ]),
  acrValues: DEMO_ACR_VALUES,
};

const facts = (more: Partial<AuthorizeFacts> = {}): AuthorizeFacts => ({
  endpoint: "authorize",
  redirectUri: "https://rp.example/cb",
  scopes: ["openid"],
  ...more,
});
const client = (more: Partial<PlanningClient> = {}): PlanningClient => ({ id: "rp", ...more });

describe("acr levels", () => {
  it("ranks 1fa below 2fa, case-insensitively, and anything else as no level", () => {
    expect([acrRank("1fa"), acrRank("2FA"), acrRank("must_bfido"), acrRank(undefined)]).toEqual([1, 2, 0, 0]);
  });

  it("lets a stronger login meet a weaker minimum, never the reverse", () => {
    expect(meetsMinimum("2fa", { value: "1fa", by: [] })).toBe(true);
    expect(meetsMinimum("1fa", { value: "2fa", by: [] })).toBe(false);
    expect(meetsMinimum("1fa", undefined)).toBe(true);
    expect(belowMinimum("2fa", { value: "2fa", by: ["x"] })).toBeUndefined();
    expect(belowMinimum("1fa", { value: "2fa", by: ["the client's minimum_acr"] })).toBe(
      "the login reached acr 1fa; the client's minimum_acr asks for 2fa",
    );
  });

  it("takes the weakest value an essential request accepts, and the stronger of it and the client's minimum", () => {
    expect(minimumAcrOf(undefined, ["2fa", "1fa"])).toEqual({ ok: true, minimum: { value: "1fa", by: [expect.any(String)] } });
    expect(minimumAcrOf("2fa", ["1fa"])).toMatchObject({ ok: true, minimum: { value: "2fa" } });
    expect(minimumAcrOf("1fa", ["2fa", "urn:example:gold"])).toMatchObject({ ok: true, minimum: { value: "2fa" } });
    expect(minimumAcrOf(undefined, ["urn:example:gold"])).toMatchObject({ ok: false });
  });
});

describe("planning for a minimum", () => {
  it("gives a request without a login type the two-factor login type, without returning a login_type to the client", () => {
    const result = planAuthorizeRequest(POLICY, client({ minimumAcr: "2fa" }), facts());
    expect(result).toMatchObject({ ok: true, plan: { flow: "two_factor", loginTypeName: "2FA", minimumAcr: { value: "2fa" } } });
    expect(result.ok && result.plan.loginType).toBeUndefined();
  });

  it("refuses with unmet_authentication_requirements a login type or acr value that cannot reach 2fa", () => {
    const unmet = { ok: false, error: "unmet_authentication_requirements" };
    expect(planAuthorizeRequest(POLICY, client({ minimumAcr: "2fa" }), facts({ loginType: "MfaTotp", loginHint: "alice" }))).toMatchObject(
      unmet,
    );
    expect(planAuthorizeRequest(POLICY, client({ minimumAcr: "2fa" }), facts({ acrValues: "must_bfido" }))).toMatchObject(unmet);
    const essential = { acrClaim: { essential: true, values: ["2fa"] } };
    expect(planAuthorizeRequest(POLICY, client(), facts({ loginType: "MfaTotp", loginHint: "alice", ...essential }))).toMatchObject(unmet);
  });

  it("refuses 2fa for a client that may use no two-factor login type", () => {
    const limited = client({ minimumAcr: "2fa", allowedLoginTypes: new Set(["default", "mfatotp"]) });
    expect(planAuthorizeRequest(POLICY, limited, facts())).toMatchObject({ ok: false, error: "unmet_authentication_requirements" });
  });

  it("lets an eID login try for 2fa, which only its upstream's answer decides, and records the minimum for the end of the login", () => {
    const result = planAuthorizeRequest(POLICY, client({ minimumAcr: "2fa" }), facts({ endpoint: "eid" }));
    expect(result).toMatchObject({ ok: true, plan: { flow: "eid", minimumAcr: { value: "2fa" } } });
  });

  it("plans a minimum of 1fa without changing the login, and records it for the end of the login", () => {
    const result = planAuthorizeRequest(POLICY, client({ minimumAcr: "1fa" }), facts({ loginType: "MfaTotp", loginHint: "alice" }));
    expect(result).toMatchObject({ ok: true, plan: { flow: "second_factor", minimumAcr: { value: "1fa" } } });
  });

  it("reads an acr request that is not essential as a preference after acr_values: set aside when it contradicts, never refused", () => {
    const preferred = planAuthorizeRequest(POLICY, client(), facts({ acrClaim: { essential: false, values: ["2fa"] } }));
    expect(preferred).toMatchObject({ ok: true, plan: { flow: "two_factor" } });
    expect(preferred.ok && preferred.plan.minimumAcr).toBeUndefined();
    const contradicted = planAuthorizeRequest(
      POLICY,
      client(),
      facts({ loginType: "MfaTotp", loginHint: "alice", acrClaim: { essential: false, values: ["2fa"] } }),
    );
    expect(contradicted).toMatchObject({ ok: true, plan: { flow: "second_factor" } });
  });
});

describe("portcullis policy explain", () => {
  const strict = {
    client_id: "strict-web",
    type: "confidential",
    grant_types: ["authorization_code"],
    redirect_uris: ["https://rp.example/cb"],
    post_logout_redirect_uris: [],
    allowed_scopes: ["openid", "profile"],
    minimum_acr: "2fa",
  } as unknown as ClientConfig;
  const lifetimes = {
    access_token: "1h",
    id_token: "1h",
    refresh_token: "30d",
    authorization_code: "5m",
    client_credentials_access_token: "1h",
  };
  const policy = { clients: new ClientRegistry([strict], lifetimes as never), login: POLICY, amr: new Map<string, string>() };
  const raw = (params: Record<string, string>) =>
    readAuthorizeParams(
      new URLSearchParams({
        client_id: "strict-web",
        redirect_uri: "https://rp.example/cb",
        response_type: "code",
        scope: "openid",
        ...params,
      }),
      4096,
    );

  it("shows the client's minimum and the two-factor login it leads to", () => {
    const explanation = explainAuthorizeRequest(policy, raw({}), { endpoint: "authorize", framed: false });
    const text = formatExplanation(explanation);
    expect(text).toContain("minimum acr: 2fa (the client's minimum_acr)");
    expect(text).toContain("flow: two_factor");
  });

  it("shows a request that cannot reach it as refused with unmet_authentication_requirements, sent to the redirect_uri", () => {
    const explanation = explainAuthorizeRequest(policy, raw({ login_type: "MfaTotp", login_hint: "alice" }), {
      endpoint: "authorize",
      framed: false,
    });
    expect(explanation).toMatchObject({ accepted: false, error: "unmet_authentication_requirements", shownAs: "redirect" });
    expect(formatExplanation(explanation)).toContain("refused: unmet_authentication_requirements");
  });
});

describe("requiredAcr", () => {
  it("is the stronger of the planned minimum and the client's minimum_acr as configured now", () => {
    const planned = { value: "2fa" as const, by: ["the claims parameter's essential acr"] };
    expect(requiredAcr(planned, "1fa")).toBe(planned);
    expect(requiredAcr({ value: "1fa", by: ["x"] }, "2fa")).toEqual({ value: "2fa", by: ["the client's minimum_acr"] });
    expect(requiredAcr(undefined, "2fa")).toEqual({ value: "2fa", by: ["the client's minimum_acr"] });
    expect(requiredAcr(undefined, undefined)).toBeUndefined();
  });
});
