import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import type { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import { startTestProvider, send, type TestProvider } from "../../support/test-provider.ts";
import { enrolledPhone } from "../../trusted-app/trusted-app-support.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import {
  DEMO_WEB,
  errorOfScript,
  loadLoginJs,
  loginJsUrl,
  mobileTokens,
  PC_REDIRECT,
  pcLogin,
  renew,
  scan,
  scannedSession,
  scanState,
  writeStatus,
} from "../../support/custom-login.ts";

/**
 * The custom QR-code login end to end over real HTTP, the browser's script played by the test: LoginJs
 * starts a scan session, the reference trusted app scans its QR, the mobile page redeems its code and
 * writes 5 then 10, the page's poll follows, and the PC side logs in once with state `<data>|<PCState>`
 * and `custom_scan` in its ID token.
 */
let p: TestProvider;
let alice: TrustedAppClient;
let bob: TrustedAppClient;

beforeAll(async () => {
  p = await startTestProvider({ edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000 } } });
  alice = await enrolledPhone(p, "E10001");
  bob = await enrolledPhone(p, "E10002", "Bob's phone");
});
afterAll(() => p.close());

describe("the whole story", () => {
  it("scan, auditor, 10, PC login once: state <data>|<PCState> and custom_scan with every time", async () => {
    const session = await loadLoginJs(p, { MobileState: "m-state", PCState: "pc-state" });
    expect(session.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.qrImage).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(await scanState(session)).toBe("waiting");

    const before = Math.floor(Date.now() / 1000);
    const { params } = await scan(alice, session.qrUri);
    expect(params.get("state")).toBe(`${session.sessionId}|m-state`);
    expect(await scanState(session)).toBe("scanned");
    const tokens = await mobileTokens(p, params.get("code")!);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: "E10001", client_id: "demo-web", custom_scan_sid: session.sessionId });

    expect(await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 5, auditor: "E10002" })).toMatchObject({
      status: 200,
      json: { status: 200, message: "OK" },
    });
    expect(await scanState(session)).toBe("auditing");
    const data = "order=42|approved by E10002|ü";
    expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data })).json).toEqual({
      status: 200,
      message: "OK",
    });
    expect(await scanState(session)).toBe("approved");

    const login = await pcLogin(session);
    expect(login.status, login.text).toBe(303);
    expect(`${login.location!.origin}${login.location!.pathname}`).toBe(PC_REDIRECT);
    expect(login.location!.searchParams.get("state")).toBe(`${data}|pc-state`);
    expect(await scanState(session)).toBe("done");

    const res = await redeemCode(
      p,
      login.location!.searchParams.get("code")!,
      { redirect_uri: PC_REDIRECT, code_verifier: undefined },
      DEMO_WEB,
    );
    expect(res.status, res.text).toBe(200);
    const idToken = await verifyIdToken(p, (res.json as { id_token: string }).id_token);
    expect(idToken.sub).toBe("E10001");
    const customScan = JSON.parse(Buffer.from(idToken.custom_scan as string, "base64").toString("utf8")) as Record<string, string>;
    expect(Object.keys(customScan)).toEqual(["st", "aud", "lt", "et"]);
    expect(customScan.aud).toBe("E10002");
    for (const field of ["st", "lt", "et"] as const) {
      expect(customScan[field]).toMatch(/^\d+$/);
      expect(Number(customScan[field])).toBeGreaterThanOrEqual(before);
    }
    expect(Number(customScan.st)).toBeLessThanOrEqual(Number(customScan.lt));
    expect(Number(customScan.lt)).toBeLessThanOrEqual(Number(customScan.et));

    // The second PC login from the same session is refused.
    const again = await pcLogin(session);
    expect(again.location!.searchParams.get("error")).toBe("access_denied");
    expect(again.location!.searchParams.get("state")).toBe("pc-state");
    expect(again.location!.searchParams.get("code")).toBeNull();
  });

  it("without an auditor step, aud and lt are empty; without PCState the state is `<data>|`", async () => {
    const { session, tokens } = await scannedSession(p, alice);
    await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "plain" });
    const login = await pcLogin(session);
    expect(login.location!.searchParams.get("state")).toBe("plain|");
    const res = await redeemCode(
      p,
      login.location!.searchParams.get("code")!,
      { redirect_uri: PC_REDIRECT, code_verifier: undefined },
      DEMO_WEB,
    );
    const claim = decodeJwt((res.json as { id_token: string }).id_token).custom_scan as string;
    expect(JSON.parse(Buffer.from(claim, "base64").toString())).toMatchObject({ aud: "", lt: "" });
  });

  it("-10 ends the session: the page shows the refusal and nobody is logged in", async () => {
    const { session, tokens } = await scannedSession(p, alice, { PCState: "s" });
    expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: -10 })).json).toEqual({
      status: 200,
      message: "OK",
    });
    expect(await scanState(session)).toBe("refused");
    const login = await pcLogin(session);
    expect(login.location!.searchParams.get("error")).toBe("access_denied");
    expect(login.location!.searchParams.get("code")).toBeNull();
    // Nothing can be written after the end.
    expect(await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "x" })).toMatchObject({
      status: 400,
      json: { status: 400 },
    });
  });
});

describe("the page's long-poll", () => {
  it("waits while the state is the one the page has seen, and answers as soon as the phone scans", async () => {
    const session = await loadLoginJs(p);
    const query = new URLSearchParams({ session_id: session.sessionId, binding: session.binding, seen: "waiting" });
    const poll = send(`${session.statusUrl}?${query}`);
    let answered = false;
    void poll.then(() => (answered = true));
    // Still waiting after several of the poll's store reads: nothing changed.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(answered).toBe(false);
    await scan(alice, session.qrUri);
    const res = await poll;
    expect(res.json).toEqual({ state: "scanned" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers a settled state at once, even when the page says it has seen it", async () => {
    const query = new URLSearchParams({ session_id: "x".repeat(43), binding: "y", seen: "expired" });
    expect((await send(`${p.url}/Acme/CustomLogin/Status?${query}`)).json).toEqual({ state: "expired" });
  });
});

describe("the phone side", () => {
  it("a second scan of the same QR is refused at the mobile redirect URI", async () => {
    const session = await loadLoginJs(p);
    await scan(alice, session.qrUri);
    const second = await scan(bob, session.qrUri);
    expect(second.params.get("error")).toBe("access_denied");
    expect(second.params.get("code")).toBeNull();
  });

  it("MobileScope gets openid and acme.ext.custom_scan added; PCScope defaults to openid profile acme", async () => {
    const session = await loadLoginJs(p, { MobileScope: "profile" });
    expect(new URL(session.qrUri).searchParams.get("scope")).toBe("profile openid acme.ext.custom_scan");
    expect(session.pcAuthorize).toEqual({
      client_id: "demo-web",
      redirect_uri: PC_REDIRECT,
      scope: "openid profile acme",
      response_type: "code",
    });
  });
});

describe("LoginJs's answer", () => {
  it("is a script for any site's <script src>: never cached, loadable cross-origin, without CORS (a script tag needs none)", async () => {
    for (const url of [loginJsUrl(p), loginJsUrl(p, { clientId: undefined })]) {
      const res = await send(url, { headers: { origin: "https://other-site.example", "sec-fetch-dest": "script" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });
});

describe("LoginJs parameter errors", () => {
  const cases: Array<[string, Record<string, string | undefined>, RegExp]> = [
    ["no clientId", { clientId: undefined }, /clientId is required/],
    ["no MobileRedirectUrl", { MobileRedirectUrl: undefined }, /MobileRedirectUrl is required/],
    ["no PCRedirectUrl", { PCRedirectUrl: undefined }, /PCRedirectUrl is required/],
    ["a client without the custom login", { clientId: "demo-portal" }, /may not use the custom QR-code login/],
    [
      "an unregistered MobileRedirectUrl",
      { MobileRedirectUrl: "http://localhost:3005/elsewhere" },
      /MobileRedirectUrl is not a registered redirect URI of demo-web/,
    ],
    [
      "an unregistered PCRedirectUrl",
      { PCRedirectUrl: "http://evil.example/pc" },
      /PCRedirectUrl is not a registered redirect URI of demo-web/,
    ],
    ["a scope the client may not have", { PCScope: "openid channel.directory" }, /PCScope asks for channel.directory/],
    [
      "another PC client without the owner's scope",
      {
        clientId: "demo-channel",
        MobileRedirectUrl: "http://localhost:4100/channel/select",
        PCClientId: "demo-fourth-party",
        PCRedirectUrl: "http://localhost:3006/callback",
        PCScope: "openid profile",
      },
      /PCScope must contain one of demo-channel's own scopes \(channel\.login\.scan\)/,
    ],
    [
      "another PC client of a clientId that defines no scope",
      { PCClientId: "demo-fourth-party", PCRedirectUrl: "http://localhost:3006/callback", PCScope: "openid channel.login.scan" },
      /a scope defined by demo-web, and it defines none/,
    ],
  ];
  it.each(cases)("%s: a 400 script that names the problem", async (_name, params, message) => {
    const res = await send(loginJsUrl(p, params));
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(errorOfScript(res.text)).toMatch(message);
  });

  it("a browser's script tag gets the error script with a 200, or the browser would not run it", async () => {
    const res = await send(loginJsUrl(p, { clientId: undefined }), { headers: { "sec-fetch-dest": "script" } });
    expect(res.status).toBe(200);
    expect(errorOfScript(res.text)).toMatch(/clientId is required/);
  });

  it("the fourth party with the channel's own scope gets its script", async () => {
    const session = await loadLoginJs(p, {
      clientId: "demo-channel",
      MobileRedirectUrl: "http://localhost:4100/channel/select",
      PCClientId: "demo-fourth-party",
      PCRedirectUrl: "http://localhost:3006/callback",
      PCScope: "openid profile channel.login.scan",
      MobileState: "roleIdGt0",
    });
    expect(session.pcAuthorize.client_id).toBe("demo-fourth-party");
    expect(new URL(session.qrUri).searchParams.get("client_id")).toBe("demo-channel");
  });
});

describe("renewing the QR", () => {
  it("gives a new session and ends the old one; a scanned session is not renewed", async () => {
    const session = await loadLoginJs(p);
    const res = await renew(session);
    expect(res.status, res.text).toBe(200);
    const fresh = res.json as { sessionId: string; binding: string; qrUri: string };
    expect(fresh.sessionId).not.toBe(session.sessionId);
    expect(await scanState(session)).toBe("expired");
    expect(await scanState({ ...session, ...fresh })).toBe("waiting");
    await scan(alice, fresh.qrUri);
    expect((await renew({ ...session, ...fresh })).status).toBe(400);
  });

  it("refuses a wrong binding", async () => {
    const session = await loadLoginJs(p);
    expect((await renew(session, "x".repeat(43))).status).toBe(400);
    expect(await scanState(session)).toBe("waiting");
  });
});
