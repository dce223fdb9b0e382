/**
 * End session (SPEC "End session", "User SSO session"; OIDC RP-Initiated, Front-Channel and
 * Back-Channel Logout 1.0): the id_token_hint and redirect rules, the confirmation page and its CSRF
 * token, and single sign-out seen from relying parties on loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync, sign } from "node:crypto";
import { createLocalJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { SESSION_COOKIE } from "../../src/sessions/session-cookie.ts";
import { appendTo, clientEntry, JWKS, send, sleep } from "./helpers.ts";

const END_SESSION = "/connect/endsession";
const CONFIRM = "/connect/endsession/confirm";
const DEMO_WEB_LOGOUT = "http://localhost:3001/"; // demo-web's post_logout_redirect_uri (config/clients.yaml)

/** What the loopback relying party received on its back-channel endpoints. */
interface Delivery {
  path: string;
  contentType: string | undefined;
  token: string;
  at: number;
}

let p: TestProvider;
let rp: Server;
let rpUrl: string;
const deliveries: Delivery[] = [];
/** Per path: the statuses to answer, in order (then 200). */
const scripted = new Map<string, number[]>();
/** Per path: milliseconds to wait before answering. */
const delays = new Map<string, number>();

function relyingParty(req: IncomingMessage, res: ServerResponse): void {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    const path = req.url ?? "/";
    deliveries.push({
      path,
      contentType: req.headers["content-type"],
      token: new URLSearchParams(body).get("logout_token") ?? "",
      at: Date.now(),
    });
    const status = scripted.get(path)?.shift() ?? 200;
    setTimeout(() => {
      res.writeHead(status, { "cache-control": "no-store" });
      res.end();
    }, delays.get(path) ?? 0);
  });
}

beforeAll(async () => {
  rp = createServer(relyingParty);
  await new Promise<void>((resolve) => rp.listen(0, "127.0.0.1", resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  const rpClient = (id: string, extra: Record<string, unknown>) =>
    clientEntry(id, `${id}-secret`, ["authorization_code"], ["openid", "profile"], { redirect_uris: [`${rpUrl}/cb/${id}`], ...extra });
  p = await startTestProvider({
    edits: {
      "clients.yaml": appendTo("clients", [
        rpClient("rp-both", {
          post_logout_redirect_uris: [`${rpUrl}/after-logout`, `${rpUrl}/bye?from=op`],
          backchannel_logout_uri: `${rpUrl}/backchannel/rp-both`,
          frontchannel_logout_uri: `${rpUrl}/frontchannel/rp-both?v=1`,
        }),
        rpClient("rp-nosid", {
          backchannel_logout_uri: `${rpUrl}/backchannel/rp-nosid`,
          backchannel_logout_session_required: false,
          frontchannel_logout_uri: `${rpUrl}/frontchannel/rp-nosid`,
          frontchannel_logout_session_required: false,
        }),
        rpClient("rp-flaky", { backchannel_logout_uri: `${rpUrl}/backchannel/rp-flaky` }),
        rpClient("rp-slow", { backchannel_logout_uri: `${rpUrl}/backchannel/rp-slow` }),
      ]),
    },
  });
});
afterAll(async () => {
  await p?.close();
  await new Promise<void>((resolve) => (rp ? rp.close(() => resolve()) : resolve()));
});
beforeEach(() => {
  deliveries.length = 0;
  scripted.clear();
  delays.clear();
});

// ---------------------------------------------------------------------------------------------------

/** An SSO session in the provider, with the clients that got a code in it; returns its cookie value. */
async function login(sub = "E10001", clients: string[] = ["demo-web"]) {
  const sessions = p.provider.sessions;
  let { cookie, session } = await sessions.create({ sub, authTime: Math.floor(Date.now() / 1000), amr: ["password"], acr: "1fa" });
  for (const clientId of clients) session = await sessions.touch(cookie, session, clientId);
  return { cookie, session };
}

const cookieHeader = (cookie: string) => ({ cookie: `${p.provider.cookies.name(SESSION_COOKIE)}=${cookie}` });
const alive = async (cookie: string) => (await p.provider.sessions.find(cookie)) !== undefined;

/** An ID token as the provider issues them (typ JWT), with claims overridden. */
function idToken(claims: Record<string, unknown> = {}, typ = "JWT") {
  const now = Math.floor(Date.now() / 1000);
  return p.provider.signer.sign(
    { iss: p.issuer, sub: "E10001", aud: "demo-web", iat: now, exp: now + 3600, auth_time: now, amr: ["password"], acr: "1fa", ...claims },
    typ,
  );
}

function endSession(params: Record<string, string>, cookie?: string) {
  const query = new URLSearchParams(params).toString();
  return send(`${p.url}${END_SESSION}${query ? `?${query}` : ""}`, { redirect: "manual", headers: cookie ? cookieHeader(cookie) : {} });
}

function confirm(form: Record<string, string>, cookie?: string) {
  return send(p.url + CONFIRM, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? cookieHeader(cookie) : {}) },
    body: new URLSearchParams(form).toString(),
  });
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
const unescapeHtml = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&#x3D;/g, "=")
    .replace(/&quot;/g, '"');
const iframeSources = (html: string) => [...html.matchAll(/<iframe[^>]*\ssrc="([^"]*)"/g)].map((m) => unescapeHtml(m[1]!));

function expectErrorPage(res: Awaited<ReturnType<typeof send>>, status = 400) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  expect(res.headers.get("location")).toBeNull();
}

/** The provider's warnings that a post_logout_redirect_uri was not used. */
const ignoredUris = () => p.logs.filter((line) => line.event === "post_logout_redirect_uri_ignored");
/** The provider's warnings that a hint's client asked for a post_logout_redirect_uri it did not register. */
const refusedUris = () => p.logs.filter((line) => line.event === "post_logout_redirect_uri_refused");

/** The logged-out page, with no redirect to anywhere. */
function expectLoggedOutPage(res: Awaited<ReturnType<typeof send>>) {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  expect(res.headers.get("location")).toBeNull();
  expect(res.text).not.toContain("http://localhost:3001");
}

function expectClearedCookie(res: Awaited<ReturnType<typeof send>>) {
  const setCookie = res.headers.get("set-cookie") ?? "";
  expect(setCookie).toContain(`${p.provider.cookies.name(SESSION_COOKIE)}=;`);
  expect(setCookie).toMatch(/Max-Age=0/i);
}

async function waitFor<T>(check: () => T | undefined, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(25);
  }
}

async function verifyLogoutToken(token: string, audience: string) {
  const jwks = (await (await fetch(p.url + JWKS)).json()) as Parameters<typeof createLocalJWKSet>[0];
  return jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ["RS256"], issuer: p.issuer, audience, typ: "logout+jwt" });
}

// ---------------------------------------------------------------------------------------------------

describe("with a valid id_token_hint for the browser's session", () => {
  it("logs out without asking and redirects to the registered post_logout_redirect_uri with state", async () => {
    const { cookie, session } = await login();
    const res = await endSession(
      { id_token_hint: idToken({ sid: session.sid }), post_logout_redirect_uri: DEMO_WEB_LOGOUT, state: "s-1" },
      cookie,
    );
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get("location")).toBe(`${DEMO_WEB_LOGOUT}?state=s-1`);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expectClearedCookie(res);
    expect(await alive(cookie)).toBe(false);
  });

  it("accepts an expired hint (its expiry is not checked)", async () => {
    const { cookie, session } = await login();
    const now = Math.floor(Date.now() / 1000);
    const expired = idToken({ sid: session.sid, iat: now - 7200, exp: now - 3600 });
    const res = await endSession({ id_token_hint: expired, post_logout_redirect_uri: DEMO_WEB_LOGOUT }, cookie);
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get("location")).toBe(DEMO_WEB_LOGOUT);
    expect(await alive(cookie)).toBe(false);
  });

  it("also accepts it by POST (form)", async () => {
    const { cookie, session } = await login();
    const res = await send(p.url + END_SESSION, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...cookieHeader(cookie) },
      body: new URLSearchParams({ id_token_hint: idToken({ sid: session.sid }), post_logout_redirect_uri: DEMO_WEB_LOGOUT }).toString(),
    });
    expect(res.status, res.text).toBe(303);
    expect(await alive(cookie)).toBe(false);
  });

  it("without post_logout_redirect_uri shows the logged-out page, and ignores state", async () => {
    const { cookie, session } = await login();
    const res = await endSession({ id_token_hint: idToken({ sid: session.sid }), state: "ignored" }, cookie);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.text).not.toContain("ignored");
    expect(await alive(cookie)).toBe(false);
  });

  it("logs out a hint without sid when its sub is the session's user", async () => {
    const { cookie } = await login();
    const res = await endSession({ id_token_hint: idToken(), post_logout_redirect_uri: DEMO_WEB_LOGOUT }, cookie);
    expect(res.status, res.text).toBe(303);
    expect(await alive(cookie)).toBe(false);
  });
});

describe("refused hints", () => {
  const cases: Array<[string, () => string]> = [
    [
      "signed by a key that is not ours",
      () => {
        const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
        const [header, payload] = idToken().split(".");
        return `${header}.${payload}.${sign("sha256", Buffer.from(`${header}.${payload}`), privateKey).toString("base64url")}`;
      },
    ],
    [
      "with a tampered payload",
      () => {
        const [header, , signature] = idToken().split(".");
        return `${header}.${Buffer.from(JSON.stringify({ iss: "x", sub: "E10002", aud: "demo-web" })).toString("base64url")}.${signature}`;
      },
    ],
    ["from another issuer", () => idToken({ iss: "https://evil.example" })],
    [
      "that is an access token (typ at+jwt)",
      () =>
        p.provider.accessTokens.issue({
          sub: "E10001",
          clientId: "demo-web",
          scopes: ["openid"],
          resources: p.provider.policies.current().scopes,
          lifetime: 3600,
        }).token,
    ],
    ["for a client that is not registered", () => idToken({ aud: "no-such-client" })],
    ["that is garbage", () => "not-a-jwt"],
  ];

  it.each(cases)("answers a hint %s with a 400 page and logs nobody out", async (_name, make) => {
    const { cookie } = await login();
    const res = await endSession({ id_token_hint: make(), post_logout_redirect_uri: DEMO_WEB_LOGOUT, state: "s" }, cookie);
    expectErrorPage(res);
    expect(res.text).toContain("id_token_hint");
    expect(await alive(cookie)).toBe(true);
  });
});

describe("post_logout_redirect_uri and state", () => {
  it.each([
    ["a missing trailing slash", "http://localhost:3001"],
    ["another case", "http://LOCALHOST:3001/"],
    ["an added query", "http://localhost:3001/?x=1"],
    ["another client's URI", "http://127.0.0.1:9/after-logout"],
  ])("refuses a URI that differs by %s: an error page that offers to sign out, and nothing ended", async (_name, uri) => {
    const { cookie, session } = await login();
    const before = refusedUris().length;
    const res = await endSession({ id_token_hint: idToken({ sid: session.sid }), post_logout_redirect_uri: uri, state: "s" }, cookie);
    expectErrorPage(res);
    expect(res.text).toContain("return to an address it has not registered");
    expect(res.text).not.toContain(uri);
    expect(res.text).toContain(`href="/connect/endsession"`);
    expect(await alive(cookie)).toBe(true);
    expect(refusedUris().slice(before)).toEqual([expect.objectContaining({ client: "demo-web" })]);
    // The link signs out all the same, once the user confirms.
    const page = await endSession({}, cookie);
    expectLoggedOutPage(await confirm({ csrf: csrfOf(page.text)!, confirm: "yes" }, cookie));
    expect(await alive(cookie)).toBe(false);
  });

  it("refuses a URI registered for another client than the hint's", async () => {
    const { cookie, session } = await login();
    const res = await endSession(
      { id_token_hint: idToken({ sid: session.sid }), post_logout_redirect_uri: `${rpUrl}/after-logout` },
      cookie,
    );
    expectErrorPage(res);
    expect(await alive(cookie)).toBe(true);
  });

  it("does not use a registered URI without an id_token_hint: the user is asked, and then sees the logged-out page", async () => {
    const { cookie } = await login();
    const before = ignoredUris().length;
    const page = await endSession({ post_logout_redirect_uri: DEMO_WEB_LOGOUT, state: "s" }, cookie);
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get("location")).toBeNull();
    expect(await alive(cookie)).toBe(true);
    expect(ignoredUris().slice(before)).toEqual([expect.objectContaining({ reason: "no id_token_hint" })]);
    const done = await confirm({ csrf: csrfOf(page.text)!, confirm: "yes" }, cookie);
    expectLoggedOutPage(done);
    expect(await alive(cookie)).toBe(false);
  });

  it("refuses a client_id that is not the hint's client", async () => {
    const { cookie, session } = await login();
    expectErrorPage(await endSession({ id_token_hint: idToken({ sid: session.sid }), client_id: "rp-both" }, cookie));
  });

  it("returns state byte for byte, also after a registered query", async () => {
    const state = "a b&c=d/é+%25?#x";
    const res = await endSession({ id_token_hint: idToken({ aud: "rp-both" }), post_logout_redirect_uri: `${rpUrl}/bye?from=op`, state });
    expect(res.status, res.text).toBe(303);
    const location = res.headers.get("location")!;
    expect(location.startsWith(`${rpUrl}/bye?from=op&state=`)).toBe(true);
    const back = new URL(location).searchParams;
    expect(back.get("state")).toBe(state);
    expect(back.get("from")).toBe("op");
  });

  it("still redirects a valid hint's browser when there is no session", async () => {
    const res = await endSession({ id_token_hint: idToken(), post_logout_redirect_uri: DEMO_WEB_LOGOUT, state: "x" });
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get("location")).toBe(`${DEMO_WEB_LOGOUT}?state=x`);
  });
});

describe("confirmation (no hint, or a hint for someone else)", () => {
  it("asks, with a CSRF token, and keeps the session until the user confirms", async () => {
    const { cookie } = await login();
    const page = await endSession({}, cookie);
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain(`action="${CONFIRM}"`);
    expect(csrfOf(page.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await alive(cookie)).toBe(true);
  });

  it("refuses the confirmation POST without a token, with a wrong one, and with another browser's", async () => {
    const { cookie } = await login();
    const other = await login("E10002");
    const theirs = csrfOf((await endSession({}, other.cookie)).text)!;
    const mine = csrfOf((await endSession({}, cookie)).text)!;
    expectErrorPage(await confirm({ confirm: "yes" }, cookie));
    expectErrorPage(await confirm({ csrf: mine.slice(0, -2) + "AA", confirm: "yes" }, cookie));
    expectErrorPage(await confirm({ csrf: theirs, confirm: "yes" }, cookie));
    expectErrorPage(await confirm({ csrf: mine, confirm: "yes" })); // no cookie: not this browser
    expect(await alive(cookie)).toBe(true);
    expect(await alive(other.cookie)).toBe(true);
  });

  it("logs out on a confirmation with the right token, once", async () => {
    const { cookie } = await login();
    const csrf = csrfOf((await endSession({}, cookie)).text)!;
    const res = await confirm({ csrf, confirm: "yes" }, cookie);
    expect(res.status, res.text).toBe(200);
    expectClearedCookie(res);
    expect(await alive(cookie)).toBe(false);
    expectErrorPage(await confirm({ csrf, confirm: "yes" }, cookie));
  });

  it("ends nothing when the user stays signed in", async () => {
    const { cookie } = await login();
    const csrf = csrfOf((await endSession({}, cookie)).text)!;
    const res = await confirm({ csrf, confirm: "no" }, cookie);
    expect(res.status).toBe(204);
    expect(await alive(cookie)).toBe(true);
  });

  it("asks when the hint names another user, and then honours its redirect", async () => {
    const { cookie } = await login("E10001");
    const page = await endSession(
      { id_token_hint: idToken({ sub: "E10002" }), post_logout_redirect_uri: DEMO_WEB_LOGOUT, state: "st" },
      cookie,
    );
    expect(page.status, page.text).toBe(200);
    expect(await alive(cookie)).toBe(true);
    expect(page.text).toContain(`href="${DEMO_WEB_LOGOUT}?state&#x3D;st"`); // "Stay signed in" goes back to the client
    const res = await confirm({ csrf: csrfOf(page.text)!, confirm: "yes" }, cookie);
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get("location")).toBe(`${DEMO_WEB_LOGOUT}?state=st`);
    expect(await alive(cookie)).toBe(false);
  });

  it("asks when the hint is from another session of the same user (sid differs)", async () => {
    const { cookie } = await login("E10001");
    const page = await endSession({ id_token_hint: idToken({ sid: "an-older-session" }) }, cookie);
    expect(page.status, page.text).toBe(200);
    expect(csrfOf(page.text)).toBeDefined();
    expect(await alive(cookie)).toBe(true);
  });

  it("does not ask when there is no session to end", async () => {
    const res = await endSession({});
    expect(res.status, res.text).toBe(200);
    expect(csrfOf(res.text)).toBeUndefined();
    expect(res.text).toContain("logged-out");
  });
});

describe("single sign-out", () => {
  it("posts a logout token to every back-channel client of the session, verifiable with the JWKS", async () => {
    const { cookie, session } = await login("E10001", ["rp-both", "rp-nosid", "demo-web"]);
    const res = await endSession({}, cookie);
    await confirm({ csrf: csrfOf(res.text)!, confirm: "yes" }, cookie);
    const both = await waitFor(() => deliveries.find((d) => d.path === "/backchannel/rp-both"));
    const nosid = await waitFor(() => deliveries.find((d) => d.path === "/backchannel/rp-nosid"));
    expect(both.contentType).toBe("application/x-www-form-urlencoded");

    const { payload, protectedHeader } = await verifyLogoutToken(both.token, "rp-both");
    expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "logout+jwt", kid: expect.any(String) });
    expect(payload).toMatchObject({ iss: p.issuer, aud: "rp-both", sub: "E10001", sid: session.sid, jti: expect.any(String) });
    expect(payload.events).toEqual({ "http://schemas.openid.net/event/backchannel-logout": {} });
    expect(payload).not.toHaveProperty("nonce");
    expect(payload.exp! - payload.iat!).toBe(120);

    const other = await verifyLogoutToken(nosid.token, "rp-nosid");
    expect(other.payload).not.toHaveProperty("sid");
    expect(other.payload).not.toHaveProperty("nonce");
    expect(other.payload.sub).toBe("E10001");
    expect(other.payload.jti).not.toBe(payload.jti);
  });

  it("shows front-channel iframes with iss and sid when the client asks for them", async () => {
    const { cookie, session } = await login("E10001", ["rp-both", "rp-nosid"]);
    const res = await endSession(
      { id_token_hint: idToken({ aud: "rp-both", sid: session.sid }), post_logout_redirect_uri: `${rpUrl}/after-logout`, state: "z" },
      cookie,
    );
    expect(res.status, res.text).toBe(200);
    const frames = iframeSources(res.text);
    expect(frames).toHaveLength(2);
    const withSid = new URL(frames.find((f) => f.includes("/frontchannel/rp-both"))!);
    expect(withSid.searchParams.get("v")).toBe("1");
    expect(withSid.searchParams.get("iss")).toBe(p.issuer);
    expect(withSid.searchParams.get("sid")).toBe(session.sid);
    expect(frames).toContain(`${rpUrl}/frontchannel/rp-nosid`);
    expect(res.headers.get("content-security-policy")).toContain(`frame-src ${rpUrl}`);
    // The page continues to the client's redirect itself (link + script with the CSP nonce).
    expect(res.text).toContain(`href="${rpUrl}/after-logout?state&#x3D;z"`);
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'nonce-[A-Za-z0-9_-]+'/);
    expect(await alive(cookie)).toBe(false);
  });

  it("retries a back-channel delivery after a 500 from the client", async () => {
    scripted.set("/backchannel/rp-flaky", [500]);
    const { cookie } = await login("E10001", ["rp-flaky"]);
    const res = await endSession({ id_token_hint: idToken({ aud: "rp-flaky" }) }, cookie);
    expect(res.status).toBe(200);
    await waitFor(() => (deliveries.filter((d) => d.path === "/backchannel/rp-flaky").length >= 2 ? true : undefined));
    const attempts = deliveries.filter((d) => d.path === "/backchannel/rp-flaky");
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
    expect(attempts[1]!.token).toBe(attempts[0]!.token);
    const retried = p.logs.find((l) => l.msg === "back-channel logout attempt failed; retrying");
    expect(retried).toMatchObject({ clientId: "rp-flaky", status: 500 });
    expect(p.logText()).not.toContain(attempts[0]!.token);
  });

  it("does not make the browser wait for a slow back-channel client", async () => {
    delays.set("/backchannel/rp-slow", 2500);
    const { cookie } = await login("E10001", ["rp-slow"]);
    const started = Date.now();
    const res = await endSession({ id_token_hint: idToken({ aud: "rp-slow" }) }, cookie);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await alive(cookie)).toBe(false);
    await waitFor(() => deliveries.find((d) => d.path === "/backchannel/rp-slow"));
  });

  it("notifies the clients only once when two logouts race", async () => {
    const { cookie } = await login("E10001", ["rp-both"]);
    const hint = idToken({ aud: "rp-both" });
    const [a, b] = await Promise.all([endSession({ id_token_hint: hint }, cookie), endSession({ id_token_hint: hint }, cookie)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await waitFor(() => deliveries.find((d) => d.path === "/backchannel/rp-both"));
    await sleep(200);
    expect(deliveries.filter((d) => d.path === "/backchannel/rp-both")).toHaveLength(1);
  });
});

describe("methods", () => {
  it("answers PUT with 405, and GET on the confirmation path with 405", async () => {
    expect((await send(p.url + END_SESSION, { method: "PUT" })).status).toBe(405);
    expect((await send(p.url + CONFIRM)).status).toBe(405);
  });

  it("refuses a repeated parameter with a 400 page", async () => {
    const res = await send(`${p.url}${END_SESSION}?state=a&state=b`);
    expectErrorPage(res);
  });

  it("does not take a form POST of another content type", async () => {
    const res = await postForm(p.url + END_SESSION, "x", { "content-type": "text/plain" });
    expectErrorPage(res);
  });
});
