/**
 * One audit event per security-relevant act, from real requests to a real provider: logins (success and
 * a wrong password), factors, a token per grant, refresh reuse, revocation, session end with each
 * single sign-out delivery, a lockout and an enrollment change.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { generate } from "otplib";
import { authorizeUrl, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";
import { submitStep } from "../support/method-pages.ts";
import { redeemCode, refresh } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { eventually } from "../support/relying-party.ts";
import { ALICE, collectAudit, eventsOf, loginAndRedeem } from "../support/audited-login.ts";

let p: TestProvider;
let rp: Server;
let backChannelHits = 0;
let events: AuditEvent[];

beforeAll(async () => {
  rp = createServer((req, res) => {
    backChannelHits++;
    req.resume();
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => rp.listen(0, "127.0.0.1", resolve));
  const rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  p = await startTestProvider({
    edits: {
      "clients.yaml": {
        "clients.0.backchannel_logout_uri": `${rpUrl}/backchannel`,
        "clients.0.frontchannel_logout_uri": `${rpUrl}/frontchannel`,
      },
    },
  });
  events = collectAudit(p);
});
afterAll(async () => {
  await p?.close();
  await new Promise<void>((resolve) => (rp ? rp.close(() => resolve()) : resolve()));
});
beforeEach(() => {
  events.length = 0;
});

describe("a login", () => {
  it("records the factor, the login with its flow, machine hash and path, the session it started and the token issued in it", async () => {
    const { jti } = await loginAndRedeem(p);
    const [factor] = eventsOf(events, "factor.passed");
    expect(factor).toMatchObject({ method: "password", flow_id: "default", sub: "E10001", login_id: expect.any(String) });
    const [login] = eventsOf(events, "login.succeeded");
    const flow = p.provider.policies.current().flows.get("default")!;
    expect(login).toMatchObject({
      flow_id: "default",
      machine_hash: flow.hash,
      client_id: "demo-web",
      sub: "E10001",
      amr: ["password"],
      acr: "1fa",
    });
    // The demo's default flow starts with qrcode; the user chose password, which identifies the user itself.
    expect(login!.path[0]).toBe("signingIn.qrcode");
    expect(login!.path).toContain("signingIn.password");
    expect(login!.path.at(-1)).toBe("authenticated");
    const [started] = eventsOf(events, "session.started");
    expect(started).toMatchObject({ sub: "E10001", login_id: login!.login_id });
    expect(factor!.login_id).toBe(login!.login_id);
    const [issued] = eventsOf(events, "token.issued");
    expect(issued).toMatchObject({
      grant: "authorization_code",
      client_id: "demo-web",
      sub: "E10001",
      jti,
      sid: started!.sid,
      acr: "1fa",
      id_token: true,
      refresh_token: true,
    });
    expect(issued!.family).toBeTruthy();
  });

  it("records a wrong password as a refused factor and a failed login attempt, with the reason", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    const answer = await submitPassword(browser, page, ALICE.username, "not-alices-password");
    expect(answer.status).toBe(200);
    expect(eventsOf(events, "factor.failed")).toEqual([
      { type: "factor.failed", method: "password", flow_id: "default", login_id: expect.any(String), reason: "method.password.wrong" },
    ]);
    const [failed] = eventsOf(events, "login.failed");
    expect(failed).toMatchObject({ flow_id: "default", client_id: "demo-web", reason: "method.password.wrong" });
    expect(failed!.path).toContain("signingIn.password");
    expect(eventsOf(events, "login.succeeded")).toEqual([]);
  });

  it("records each factor of a two-factor login, in order, under one login id, and the login's path through both", async () => {
    const totp = p.provider.methods.get("totp")!;
    const secret = new URL(await totp.plugin.enrollByOperator!(totp.context, "E10001", {})).searchParams.get("secret")!;
    events.length = 0;
    const browser = new RawBrowser();
    const secondFactor = await submitPassword(
      browser,
      await openLoginPage(browser, authorizeUrl(p.issuer, { login_type: "2FA" })),
      ALICE.username,
      ALICE.password,
    );
    expect(secondFactor.text).toContain('name="event" value="SUBMIT_CODE"');
    const done = await submitStep(browser, secondFactor, {
      event: "SUBMIT_CODE",
      code: await generate({ secret, epoch: Math.floor(Date.now() / 1000) }),
    });
    expect(responseParams(done).get("code")).toBeTruthy();
    const [login] = eventsOf(events, "login.succeeded");
    expect(login).toMatchObject({ sub: "E10001", acr: "2fa", amr: ["password", "totp", "mfa"] });
    expect(eventsOf(events, "factor.passed")).toEqual([
      { type: "factor.passed", method: "password", flow_id: login!.flow_id, login_id: login!.login_id, sub: "E10001" },
      { type: "factor.passed", method: "totp", flow_id: login!.flow_id, login_id: login!.login_id, sub: "E10001" },
    ]);
    expect(login!.path.some((state) => state.includes("password"))).toBe(true);
    expect(login!.path.some((state) => state.includes("totp"))).toBe(true);
    expect(login!.machine_hash).toBe(p.provider.policies.current().flows.get(login!.flow_id)!.hash);
  });

  it("names the login type and the acr values asked and met: a two-factor login asked by acr_values, an MfaTotp login on the same flow as MyVendor's", async () => {
    const totp = p.provider.methods.get("totp")!;
    const secret = new URL(await totp.plugin.enrollByOperator!(totp.context, "E10002", {})).searchParams.get("secret")!;
    const code = () => generate({ secret, epoch: Math.floor(Date.now() / 1000) });
    events.length = 0;
    const browser = new RawBrowser();
    const secondFactor = await submitPassword(
      browser,
      await openLoginPage(browser, authorizeUrl(p.issuer, { acr_values: "2FA urn:example:silver" })),
      "bob",
      "bob-password",
    );
    expect(responseParams(await submitStep(browser, secondFactor, { event: "SUBMIT_CODE", code: await code() })).get("code")).toBeTruthy();
    const [twoFactor] = eventsOf(events, "login.succeeded");
    expect(twoFactor).toMatchObject({ login_type: "2FA", acr_values: ["2FA", "urn:example:silver"], acr_values_met: ["2fa"], acr: "2fa" });

    events.length = 0;
    const mfa = new RawBrowser();
    const page = await mfa.follow(await mfa.get(authorizeUrl(p.issuer, { login_type: "mfatotp", login_hint: "bob" })));
    expect((await submitStep(mfa, page, { event: "SUBMIT_CODE", code: "000000" })).status).toBe(200);
    const [failed] = eventsOf(events, "login.failed");
    // The declared name (not the case sent), and the flow MyVendor shares: only login_type tells them apart.
    expect(failed).toMatchObject({
      flow_id: p.provider.policies.current().flows.forPlan("second_factor", ["totp"])!.id,
      login_type: "MfaTotp",
      reason: expect.any(String),
    });
    expect(failed).not.toHaveProperty("acr_values");
    // The default login names no login type.
    events.length = 0;
    await loginAndRedeem(p);
    expect(eventsOf(events, "login.succeeded")[0]).not.toHaveProperty("login_type");
  });

  it("records a lockout once, naming the user, when the password attempts run out", async () => {
    // bob: the demo allows 5 failures per 15 minutes; the 6th attempt is refused.
    for (let i = 0; i < 7; i++) {
      const browser = new RawBrowser();
      await submitPassword(browser, await openLoginPage(browser, authorizeUrl(p.issuer)), "bob", `wrong-${i}`);
    }
    expect(eventsOf(events, "lockout")).toEqual([{ type: "lockout", sub: "E10002", method: "password" }]);
  });
});

describe("tokens", () => {
  it("records client_credentials and password grants", async () => {
    const cc = await postForm(
      `${p.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    expect(cc.status, cc.text).toBe(200);
    const pw = await postForm(
      `${p.url}/connect/token`,
      { grant_type: "password", username: "alice", password: "alice-password", scope: "profile" },
      { authorization: basic("demo-legacy", "demo-legacy-secret") },
    );
    expect(pw.status, pw.text).toBe(200);
    // The password grant is a login too: its token names it.
    const [login] = eventsOf(events, "login.succeeded");
    expect(login).toEqual({
      type: "login.succeeded",
      flow_id: "password_grant",
      path: [],
      login_id: expect.any(String),
      client_id: "demo-legacy",
      sub: "E10001",
      amr: ["password"],
    });
    const issued = eventsOf(events, "token.issued");
    expect(issued).toEqual([
      {
        type: "token.issued",
        grant: "client_credentials",
        client_id: "demo-service",
        sub: "demo-service",
        jti: decodeJwt(String(cc.json!.access_token)).jti,
        id_token: false,
        refresh_token: false,
      },
      {
        type: "token.issued",
        grant: "password",
        client_id: "demo-legacy",
        sub: "E10001",
        jti: decodeJwt(String(pw.json!.access_token)).jti,
        amr: ["password"],
        login_id: login!.login_id,
        id_token: false,
        refresh_token: false,
      },
    ]);
  });

  it("records a refused password grant as a failed login, naming the account tried but never the user name as typed", async () => {
    for (const username of ["alice", "no-such-user-typed"]) {
      const answer = await postForm(
        `${p.url}/connect/token`,
        { grant_type: "password", username, password: "not-the-password", scope: "profile" },
        { authorization: basic("demo-legacy", "demo-legacy-secret") },
      );
      expect(answer.status, answer.text).toBe(400);
    }
    expect(eventsOf(events, "login.failed")).toEqual([
      { type: "login.failed", flow_id: "password_grant", path: [], client_id: "demo-legacy", sub: "E10001", reason: "invalid_grant" },
      { type: "login.failed", flow_id: "password_grant", path: [], client_id: "demo-legacy", reason: "invalid_grant" },
    ]);
    expect(eventsOf(events, "token.issued")).toEqual([]);
  });

  it("records a refresh, then the reuse of the rotated token", async () => {
    const { tokens } = await loginAndRedeem(p);
    events.length = 0;
    const rotated = await refresh(p, tokens.refresh_token!, {}, { id: "demo-web", secret: "demo-web-secret" });
    expect(rotated.status, rotated.text).toBe(200);
    const [issued] = eventsOf(events, "token.issued");
    expect(issued).toMatchObject({
      grant: "refresh_token",
      client_id: "demo-web",
      sub: "E10001",
      jti: decodeJwt(String(rotated.json!.access_token)).jti,
      refresh_token: true,
    });
    const reused = await refresh(p, tokens.refresh_token!, {}, { id: "demo-web", secret: "demo-web-secret" });
    expect(reused.status).toBe(400);
    expect(eventsOf(events, "refresh_token.reuse_detected")).toEqual([{ type: "refresh_token.reuse_detected", family: issued!.family }]);
  });

  it("records a failed client authentication, naming the client only when it is a registered one, with the method and the reason", async () => {
    for (const [id, secret] of [
      ["demo-web", "not-the-secret"],
      ["an-id-typed-by-mistake", "x"],
    ] as const) {
      const answer = await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, { authorization: basic(id, secret) });
      expect(answer.status, answer.text).toBe(401);
    }
    expect(eventsOf(events, "client.authentication_failed")).toEqual([
      { type: "client.authentication_failed", client_id: "demo-web", method: "client_secret_basic", reason: "wrong_secret" },
      { type: "client.authentication_failed", method: "client_secret_basic", reason: "unknown_client" },
    ]);
  });

  it("records a code presented again, naming the access token and refresh family its first exchange issued (both revoked)", async () => {
    const { code, jti } = await loginAndRedeem(p);
    const [issued] = eventsOf(events, "token.issued");
    events.length = 0;
    const again = await redeemCode(p, code, { code_verifier: undefined });
    expect(again.status).toBe(400);
    expect(eventsOf(events, "authorization_code.reuse_detected")).toEqual([
      { type: "authorization_code.reuse_detected", jti, family: issued!.family, client_id: "demo-web" },
    ]);
  });

  it("records revocations of an access token and of a refresh token", async () => {
    const { tokens, jti } = await loginAndRedeem(p);
    events.length = 0;
    const auth = { authorization: basic("demo-web", "demo-web-secret") };
    expect((await postForm(`${p.url}/connect/revocation`, { token: tokens.access_token }, auth)).status).toBe(200);
    expect(
      (await postForm(`${p.url}/connect/revocation`, { token: tokens.refresh_token!, token_type_hint: "refresh_token" }, auth)).status,
    ).toBe(200);
    const revoked = eventsOf(events, "token.revoked");
    expect(revoked[0]).toEqual({ type: "token.revoked", token_type: "access_token", client_id: "demo-web", jti, sub: "E10001" });
    expect(revoked[1]).toMatchObject({ type: "token.revoked", token_type: "refresh_token", client_id: "demo-web", sub: "E10001" });
  });
});

describe("sessions and enrollments", () => {
  it("records the end of a session and each single sign-out delivery", async () => {
    const { browser, tokens } = await loginAndRedeem(p);
    const [started] = eventsOf(events, "session.started");
    const logout = await browser.get(`${p.url}/connect/endsession?${new URLSearchParams({ id_token_hint: tokens.id_token })}`);
    expect(logout.status, logout.text.slice(0, 200)).toBe(200);
    await eventually(() => eventsOf(events, "logout.delivered").length === 2, "both deliveries");
    expect(eventsOf(events, "session.ended")).toEqual([{ type: "session.ended", sid: started!.sid, sub: "E10001", reason: "logout" }]);
    const deliveries = eventsOf(events, "logout.delivered").sort((a, b) => a.channel.localeCompare(b.channel));
    expect(deliveries).toEqual([
      { type: "logout.delivered", sid: started!.sid, client_id: "demo-web", channel: "back", ok: true },
      { type: "logout.delivered", sid: started!.sid, client_id: "demo-web", channel: "front", ok: true },
    ]);
    expect(backChannelHits).toBeGreaterThan(0);
  });

  it("records an enrollment added, replaced and removed", async () => {
    const totp = p.provider.enrollments.forMethod("totp");
    await totp.put("E10003", { any: 1 });
    await totp.put("E10003", { any: 2 });
    await totp.update("E10003", () => ({ any: 3 })); // the plugin's own change: not an enrollment change
    await totp.remove("E10003");
    expect(eventsOf(events, "enrollment.changed").map((e) => e.change)).toEqual(["added", "replaced", "removed"]);
    expect(eventsOf(events, "enrollment.changed")[0]).toEqual({
      type: "enrollment.changed",
      sub: "E10003",
      method: "totp",
      change: "added",
    });
  });
});
