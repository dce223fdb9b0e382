import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createActor, createMachine } from "xstate";
import type { LoginPolicy, MethodClass } from "../../src/login-policy/login-policy.ts";
import { DEMO_METHOD_CLASSES, LOGIN_TYPE_METHODS, loginTypeEntry } from "../support/login-policy-fixture.ts";
import { planAuthorizeRequest } from "../../src/login-policy/plan-authorize-request.ts";
import { freshLoginReason, loginNeed } from "../../src/http/authorize/start-login.ts";
import { authenticationResult } from "../../src/runtime/authentication-result.ts";
import type { ConfiguredMethod } from "../../src/runtime/method-plugins.ts";
import type { AuthorizationRequest } from "../../src/oauth/authorization-request.ts";
import type { SsoSession } from "../../src/sessions/sso-sessions.ts";
import { createTwoFactorFlow } from "../../flows/two-factor.flow.ts";

/**
 * The properties the login plan owes the server, over any request and any session: no SSO answer
 * (a code without a login) unless the session proves what the plan asks; a two-factor answer has a
 * method of each class in amr; and the two-factor flow cannot finish without both classes, whatever
 * the user sends it.
 */
const CLASSES = DEMO_METHOD_CLASSES;
const METHODS = Object.keys(CLASSES);
const type = loginTypeEntry;
const POLICY: LoginPolicy = {
  methodClasses: new Map(Object.entries(CLASSES)),
  defaultMethods: ["qrcode", "password", "appotp"],
  loginTypes: new Map([
    type("2FA", "two_factor", [...LOGIN_TYPE_METHODS]),
    type("Mfa", "second_factor", ["appotp", "qrcode", "totp", "fido"]),
    type("MfaTotp", "second_factor", ["totp"], { fa: false }),
    type("eID", "eid", []),
  ]),
  acrValues: DEMO_ACR_VALUES,
};

const acrValue = fc.constantFrom(
  "2fa",
  "2FA",
  "2fa:totp,password",
  "2fa:qrcode/fido",
  "must_bfido",
  "MUST_BFIDO",
  "req_chnl",
  "chnl_info",
  "app_gps",
  "app_faceid",
  "urn:other",
);
const requestFacts = fc.record({
  loginType: fc.option(fc.constantFrom("2FA", "Mfa", "MfaTotp", "eID", "2fa"), { nil: undefined }),
  fa: fc.option(fc.constantFrom("totp", "password,totp", "qrcode/fido"), { nil: undefined }),
  acrValues: fc.option(
    fc.uniqueArray(acrValue, { maxLength: 3 }).map((values) => values.join(" ")),
    { nil: undefined },
  ),
  loginHint: fc.option(fc.constantFrom("alice", "bob"), { nil: undefined }),
});
const sessionMethods = fc.subarray([...METHODS, "eid"]);

const classesOf = (methods: readonly string[]) => new Set(methods.map((m) => CLASSES[m]).filter(Boolean));

describe("login plan properties", () => {
  it("gives no code over a session unless the session proves what the plan asks", () => {
    let answered = 0;
    fc.assert(
      fc.property(requestFacts, sessionMethods, (facts, methods) => {
        const session = {
          sub: "E1",
          authTime: 0,
          amr: methods,
          acr: "1fa",
          methods,
          sid: "s",
          createdAt: 0,
          lastSeenAt: 0,
          clients: [],
        } as SsoSession;
        const planned = planAuthorizeRequest(
          POLICY,
          { id: "demo-web" },
          { endpoint: "authorize", redirectUri: "https://rp/cb", scopes: ["openid"], ...facts },
          { methods },
        );
        if (!planned.ok) return;
        const request = {
          clientId: "demo-web",
          redirectUri: "https://rp/cb",
          responseMode: "query",
          scopes: ["openid"],
          prompt: [],
          framed: false,
          plan: planned.plan,
        } as AuthorizationRequest;
        const used = planned.plan.sso.use ? session : undefined;
        if (loginNeed(request, used, freshLoginReason(request, used, 1000)).kind !== "none") return;
        // The session answers: it must hold everything the plan asks for.
        answered++;
        const plan = planned.plan;
        expect(plan.sso.use).toBe(true);
        if (plan.flow === "two_factor") expect(classesOf(methods)).toEqual(new Set(["trusted", "untrusted"]));
        // A value that requires methods (must_bfido, app_gps) is met only by a session that passed one of them.
        if (plan.requiredMethods) expect(methods.some((m) => plan.requiredMethods!.includes(m))).toBe(true);
        if (plan.flow === "eid") expect(methods).toContain("eid");
        expect(plan.claims.gps || plan.claims.faceid).toBe(false);
      }),
      { numRuns: 2000 },
    );
    expect(answered).toBeGreaterThan(50);
  });

  it("a 2fa result names a method of each class in amr, and only then", () => {
    const configured = new Map(
      Object.entries(CLASSES).map(([id, c]) => [id, { amr: id, plugin: { class: c } } as unknown as ConfiguredMethod]),
    );
    fc.assert(
      fc.property(fc.subarray(METHODS, { minLength: 1 }), fc.subarray(METHODS), (passed, prior) => {
        const auth = authenticationResult({ sub: "E1", methods: passed }, configured, 0, prior);
        const both = classesOf([...prior, ...passed]).size === 2;
        expect(auth.acr).toBe(both ? "2fa" : "1fa");
        expect(auth.amr.includes("mfa")).toBe(both);
        if (both) expect(classesOf(auth.amr.filter((a) => a !== "mfa"))).toEqual(new Set(["trusted", "untrusted"]));
      }),
    );
  });

  it("the two-factor flow finishes only with both classes passed, whatever the user sends", () => {
    const methods = [
      { id: "password", identifiesUser: true, class: "trusted" as const },
      { id: "qrcode", identifiesUser: true, class: "trusted" as const },
      { id: "totp", identifiesUser: false, class: "untrusted" as const },
      { id: "fido", identifiesUser: false, class: "untrusted" as const },
    ];
    // Each method passes on its own PASS event for the user the event names (a stand-in for the plugin's machine).
    const passing = createMachine({
      initial: "waiting",
      states: { waiting: { on: { PASS: "passed" } }, passed: { type: "final" } },
      output: () => ({ sub: "E1" }),
    });
    const flow = createTwoFactorFlow(methods).provide({
      actors: { password: passing, qrcode: passing, totp: passing, fido: passing, identify: passing },
    });
    const event = fc.oneof(
      fc.constantFrom(...methods.map((m) => ({ type: "CHOOSE_METHOD", method: m.id }))),
      fc.constant({ type: "START_OVER" }),
      fc.constant({ type: "PASS" }),
    );
    let finished = 0;
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 20 }),
        fc.subarray(["trusted", "untrusted"] as MethodClass[], { minLength: 1 }),
        (events, missing) => {
          const actor = createActor(flow, { input: { missingClasses: missing, ...(missing.length === 1 && { sub: "E1" }) } }).start();
          for (const e of events) {
            if (actor.getSnapshot().status === "done") break;
            // PASS goes to the running method (or identify step), as the plugin's own event would.
            if (e.type === "PASS")
              for (const child of Object.values(actor.getSnapshot().children)) (child as { send(e: unknown): void } | undefined)?.send(e);
            else actor.send(e as never);
          }
          const snapshot = actor.getSnapshot();
          if (snapshot.status !== "done") return;
          finished++;
          const passed = classesOf(snapshot.output!.methods);
          for (const c of missing) expect(passed.has(c)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    // Not vacuous: many of the random sessions do get through.
    expect(finished).toBeGreaterThan(20);
  });
});
