import { describe, expect, it } from "vitest";
import { parseAcrValues } from "../../src/login-policy/acr-values.ts";
import { acrAskedOfUpstream } from "../../src/login-policy/acr-asked-of-upstream.ts";
import type { LoginPolicy } from "../../src/login-policy/login-policy.ts";
import { planLogin, type LoginPlan, type SessionFacts } from "../../src/login-policy/plan-login.ts";
import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";
import { DEMO_METHOD_CLASSES, loginTypeEntry } from "../support/login-policy-fixture.ts";

/**
 * An eID login's step-up in the login plan: the acr values a request at /eID/authorize sends that the
 * upstream's `acr.forward` names are what the upstream is asked for (`upstreamAcr`), and an eID session
 * serves such a request only when its acr (what its upstream performed) is one of them.
 */
const POLICY: LoginPolicy = {
  methodClasses: new Map(Object.entries(DEMO_METHOD_CLASSES)),
  defaultMethods: ["password"],
  loginTypes: new Map([
    loginTypeEntry("2FA", "two_factor", ["password", "totp"]),
    loginTypeEntry("eID", "eid", [], { upstream: "dev-eid", acrForwarded: new Set(["2fa"]) }),
  ]),
  acrValues: DEMO_ACR_VALUES,
};

/** The plan of a request at /eID/authorize, read as the server reads it (acr_values after the eID endpoint's login type). */
function eidPlan(acrValues: string | undefined, session?: SessionFacts): LoginPlan {
  const parsed = parseAcrValues(acrValues, DEMO_ACR_VALUES, { loginType: "eid", fa: false });
  if (!parsed.ok) throw new Error(parsed.description);
  const result = planLogin(
    POLICY,
    { endpoint: "eid", clientId: "demo-web", scopes: ["openid"], acr: parsed.requirements, ...(acrValues !== undefined && { acrValues }) },
    session,
  );
  if (!result.ok) throw new Error(result.description);
  return result.plan;
}

const EID_SESSION_1FA: SessionFacts = { methods: ["eid"], acr: "1fa" };
const EID_SESSION_2FA: SessionFacts = { methods: ["eid"], acr: "2fa" };

describe("acrAskedOfUpstream", () => {
  const forwarded = new Set(["2fa", "req_chnl"]);
  it("takes the declared values the upstream forwards, as declared, in the order sent, each once", () => {
    expect(acrAskedOfUpstream("REQ_CHNL 2FA 2fa:totp voluntary", DEMO_ACR_VALUES, forwarded)).toEqual(["req_chnl", "2fa"]);
  });
  it("asks nothing for no acr_values, undeclared values, or declared ones the upstream does not forward", () => {
    expect(acrAskedOfUpstream(undefined, DEMO_ACR_VALUES, forwarded)).toEqual([]);
    expect(acrAskedOfUpstream("urn:example:loa:high 3fa", DEMO_ACR_VALUES, forwarded)).toEqual([]);
    expect(acrAskedOfUpstream("chnl_info", DEMO_ACR_VALUES, forwarded)).toEqual([]);
    // must_bfido:x is no must_bfido (it takes no argument): voluntary, never forwarded as anything.
    expect(acrAskedOfUpstream("must_bfido:x", DEMO_ACR_VALUES, new Set(["must_bfido"]))).toEqual([]);
  });
});

describe("the eID login's plan", () => {
  it("asks the upstream for 2fa, which the plan sets aside for this provider's own login (it selects login type 2FA)", () => {
    const plan = eidPlan("2fa");
    expect(plan).toMatchObject({ flow: "eid", upstream: "dev-eid", upstreamAcr: ["2fa"] });
    expect(eidPlan(undefined).upstreamAcr).toBeUndefined();
  });

  it("lets an eID session serve a request that asks the upstream nothing, or what the session's upstream performed", () => {
    expect(eidPlan(undefined, EID_SESSION_1FA).sessionSuffices).toBe(true);
    expect(eidPlan("2fa", EID_SESSION_2FA).sessionSuffices).toBe(true);
  });

  it("sends a one-factor eID session back to the upstream for 2fa (a step-up there), and a session of unknown acr too", () => {
    expect(eidPlan("2fa", EID_SESSION_1FA).sessionSuffices).toBe(false);
    expect(eidPlan("2FA", { methods: ["eid"] }).sessionSuffices).toBe(false);
    // An employee's two-factor session is no eID login at all.
    expect(eidPlan("2fa", { methods: ["password", "totp"], acr: "2fa" }).sessionSuffices).toBe(false);
  });
});
