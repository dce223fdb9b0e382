import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { RawBrowser, hiddenField } from "../support/raw-browser.ts";
import { authorizeUrl, loginWithPassword, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

const SPA = { client_id: "demo-spa", redirect_uri: "http://localhost:3002/callback", scope: "openid profile" };
const S256 = { code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" };

/** An authorize request in a fresh browser, not followed. */
const authorize = (extra: Record<string, string | undefined> = {}, path?: string) =>
  new RawBrowser().get(authorizeUrl(p.issuer, extra, path));

/** A browser with alice logged in through demo-web. */
async function loggedInBrowser(): Promise<RawBrowser> {
  const browser = new RawBrowser();
  const answer = await loginWithPassword(browser, authorizeUrl(p.issuer));
  expect(responseParams(answer).get("code")).toBeTruthy();
  return browser;
}

describe("authorize: client and redirect_uri are checked before anything is redirected", () => {
  it.each([
    ["an unknown client", { client_id: "nobody" }],
    ["a client without the code flow", { client_id: "demo-service" }],
    ["an unregistered redirect_uri", { redirect_uri: "http://evil.example/callback" }],
    ["a redirect_uri differing in case", { redirect_uri: "http://localhost:3001/Callback" }],
    ["a redirect_uri with an extra query", { redirect_uri: "http://localhost:3001/callback?x=1" }],
    ["a missing redirect_uri", { redirect_uri: undefined }],
    ["a missing client_id", { client_id: undefined }],
  ])("shows an error page for %s and never redirects", async (_, extra) => {
    const answer = await authorize(extra);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(answer.text).toContain("invalid_request");
  });

  it("shows an error page for a repeated client_id or redirect_uri", async () => {
    const url = authorizeUrl(p.issuer) + "&redirect_uri=" + encodeURIComponent("http://127.0.0.1:3001/callback");
    const answer = await new RawBrowser().get(url);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
  });
});

describe("authorize: errors go back to the client with state and iss", () => {
  it.each([
    ["a missing response_type", { response_type: undefined }, "invalid_request"],
    ["response_type=token", { response_type: "token" }, "unsupported_response_type"],
    ["a hybrid response_type", { response_type: "code id_token" }, "unsupported_response_type"],
    ["a scope without openid", { scope: "profile" }, "invalid_scope"],
    ["a scope the client may not have", { scope: "openid acme.unknown" }, "invalid_scope"],
    ["an unsupported prompt", { prompt: "select_account" }, "invalid_request"],
    ["prompt=none with login", { prompt: "none login" }, "invalid_request"],
    ["a negative max_age", { max_age: "-1" }, "invalid_request"],
    ["an unknown code_challenge_method", { code_challenge: S256.code_challenge, code_challenge_method: "S512" }, "invalid_request"],
    [
      "plain PKCE for a client that does not allow it",
      { code_challenge: S256.code_challenge, code_challenge_method: "plain" },
      "invalid_request",
    ],
    ["PKCE with the plain default for a client that does not allow it", { code_challenge: S256.code_challenge }, "invalid_request"],
    ["a short code_challenge", { code_challenge: "abc", code_challenge_method: "S256" }, "invalid_request"],
    ["an unsupported response_mode", { response_mode: "web_message" }, "invalid_request"],
    ["a forged id_token_hint", { id_token_hint: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJFMTAwMDEifQ." }, "invalid_request"],
    ["a login_type this server does not declare", { login_type: "NoSuchType" }, "invalid_request"],
    ["acr_values 2fa naming a method that is not a method id", { acr_values: "2fa:TOTP!" }, "invalid_request"],
    ["must_bfido set aside beside fa, which still needs a login type", { acr_values: "must_bfido", fa: "totp" }, "invalid_request"],
    ["fa without a login type that lets it choose", { fa: "totp" }, "invalid_request"],
    ["a request object", { request: "eyJhbGciOiJub25lIn0.e30." }, "request_not_supported"],
    ["a nonce longer than 512 characters", { nonce: "n".repeat(513) }, "invalid_request"],
    ["a login_hint longer than 512 characters", { login_hint: "u".repeat(513) }, "invalid_request"],
    ["more than 16 acr values", { acr_values: Array.from({ length: 17 }, (_, i) => `urn:x:${i}`).join(" ") }, "invalid_request"],
    ["a request_uri", { request_uri: "https://client.example/request.jwt" }, "request_uri_not_supported"],
    ["a registration parameter", { registration: "{}" }, "registration_not_supported"],
  ])("%s → %s", async (_, extra, error) => {
    const params = responseParams(await authorize(extra));
    expect(params.get("error")).toBe(error);
    expect(params.get("state")).toBe("st-1");
    expect(params.get("iss")).toBe(p.issuer);
    expect(params.get("code")).toBeNull();
  });

  it("returns no state rather than a changed one when state is over the length limit", async () => {
    const params = responseParams(await authorize({ state: "s".repeat(5000), prompt: "none" }));
    expect(params.get("error")).toBe("invalid_request");
    expect(params.has("state")).toBe(false);
  });

  it("refuses a login by another user than the one id_token_hint names", async () => {
    const hint = p.provider.idTokens.issue({
      sub: "E10002",
      clientId: "demo-web",
      authTime: Math.floor(Date.now() / 1000),
      amr: ["password"],
      acr: "1fa",
      lifetime: 3600,
    });
    const answer = await loginWithPassword(new RawBrowser(), authorizeUrl(p.issuer, { id_token_hint: hint }));
    const params = responseParams(answer);
    expect(params.get("error")).toBe("login_required");
    expect(params.get("code")).toBeNull();
    expect(answer.headers.getSetCookie().some((c) => c.startsWith("portcullis_session=") && !c.startsWith("portcullis_session=;"))).toBe(
      false,
    );
  });

  it("rejects a repeated parameter once the client is known", async () => {
    const answer = await new RawBrowser().get(authorizeUrl(p.issuer) + "&scope=openid");
    expect(responseParams(answer).get("error")).toBe("invalid_request");
  });

  it("requires PKCE from a public client", async () => {
    expect(responseParams(await authorize(SPA)).get("error")).toBe("invalid_request");
    const ok = await authorize({ ...SPA, ...S256 });
    expect(ok.location).toMatch(/\/interaction\//);
  });

  it("ignores unknown parameters and accepts display, ui_locales, claims_locales and acr_values", async () => {
    const answer = await authorize({
      foo: "bar",
      display: "page",
      ui_locales: "ja",
      claims_locales: "en",
      acr_values: "urn:example:1 urn:example:2",
    });
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(/\/interaction\//);
  });

  it("prompt=none without a session is login_required, in the fragment when asked", async () => {
    const params = responseParams(await authorize({ prompt: "none", response_mode: "fragment" }));
    expect(params.get("error")).toBe("login_required");
    expect(params.get("iss")).toBe(p.issuer);
  });

  it("form_post answers with an auto-submitting form to the redirect_uri", async () => {
    const answer = await authorize({ prompt: "none", response_mode: "form_post", state: 'a"<b>' });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('action="http://localhost:3001/callback"');
    expect(hiddenField(answer.text, "error")).toBe("login_required");
    expect(hiddenField(answer.text, "state")).toBe('a"<b>');
    expect(answer.text).not.toContain("<b>");
    expect(answer.headers.get("content-security-policy")).toContain("form-action 'self' http://localhost:3001");
  });

  it("declines a request object the way the object asked to be answered: its response_mode and its state", async () => {
    // An unsigned object (alg none) carrying what OIDC Core §6.1 lets live only there.
    const object = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(
      JSON.stringify({ response_mode: "form_post", state: "from-the-object", client_id: "demo-web", response_type: "code" }),
    ).toString("base64url")}.`;
    const answer = await authorize({ state: undefined, request: object });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('action="http://localhost:3001/callback"');
    expect(hiddenField(answer.text, "error")).toBe("request_not_supported");
    expect(hiddenField(answer.text, "state")).toBe("from-the-object");
    // The query's own state and response_mode still come first; a garbled object changes nothing.
    expect(responseParams(await authorize({ request: object, response_mode: "query" })).get("state")).toBe("st-1");
    const garbled = responseParams(await authorize({ state: undefined, request: "not-a-jwt" }));
    expect(garbled.get("error")).toBe("request_not_supported");
    expect(garbled.has("state")).toBe(false);
  });
});

describe("authorize: login and SSO", () => {
  it("sends a browser without a session to the login page, bound by a path-scoped cookie", async () => {
    const answer = await authorize();
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(new RegExp(`^${p.issuer}/interaction/[\\w-]+$`));
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("portcullis_interaction="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toContain(`Path=${new URL(answer.location!).pathname}`);
  });

  it("accepts a POSTed authorize request", async () => {
    const browser = new RawBrowser();
    const url = new URL(authorizeUrl(p.issuer));
    const answer = await browser.post(`${p.issuer}/connect/authorize`, Object.fromEntries(url.searchParams));
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(/\/interaction\//);
  });

  it("logs in with the password, sets an HttpOnly SameSite session cookie, and returns code, state and iss", async () => {
    const browser = new RawBrowser();
    const answer = await loginWithPassword(browser, authorizeUrl(p.issuer, { state: "xyz" }));
    const params = responseParams(answer);
    expect(params.get("code")).toMatch(/^[\w-]{40,}$/);
    expect(params.get("state")).toBe("xyz");
    expect(params.get("iss")).toBe(p.issuer);
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("portcullis_session="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i); // http issuer
    // The finished interaction's binding cookie is cleared in the same response.
    expect(answer.headers.getSetCookie().some((c) => /^portcullis_interaction=;.*Max-Age=0/i.test(c))).toBe(true);
  });

  it("prefills the user name from login_hint", async () => {
    const page = await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer, { login_hint: "bob<x>" }));
    expect(page.text).toContain('value="bob&lt;x&gt;"');
  });

  it("gives a second client a code without a login (SSO)", async () => {
    const browser = await loggedInBrowser();
    const answer = await browser.get(authorizeUrl(p.issuer, { ...SPA, ...S256 }));
    expect(new URL(answer.location!).origin).toBe("http://localhost:3002");
    expect(responseParams(answer).get("code")).toBeTruthy();
  });

  it("prompt=none with a session gets a code", async () => {
    const browser = await loggedInBrowser();
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("code")).toBeTruthy();
  });

  it("prompt=consent asks nothing more of a registered client: with a session, a code at once; without, the login page", async () => {
    const browser = await loggedInBrowser();
    expect(
      responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "consent", scope: "openid profile offline_access" }))).get("code"),
    ).toBeTruthy();
    expect((await new RawBrowser().get(authorizeUrl(p.issuer, { prompt: "consent" }))).location).toMatch(/\/interaction\//);
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none consent" }))).get("error")).toBe("invalid_request");
  });

  it("rotates the session cookie at every login", async () => {
    const browser = await loggedInBrowser();
    const before = browser.cookies.get("portcullis_session")!.value;
    await loginWithPassword(browser, authorizeUrl(p.issuer, { prompt: "login" }));
    const after = browser.cookies.get("portcullis_session")!.value;
    expect(after).not.toBe(before);
    // The old handle no longer works.
    const stale = new RawBrowser();
    stale.cookies.set("portcullis_session", { value: before, path: "/" });
    expect(responseParams(await stale.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("error")).toBe("login_required");
  });

  it("a new login by the same user keeps the session id; another user's login starts a new session", async () => {
    const browser = await loggedInBrowser();
    const sessionOf = async () => (await p.provider.sessions.find(browser.cookies.get("portcullis_session")!.value))!;
    const before = await sessionOf();
    await loginWithPassword(browser, authorizeUrl(p.issuer, { prompt: "login" }));
    const renewed = await sessionOf();
    expect(renewed.sid).toBe(before.sid);
    expect(renewed.authTime).toBeGreaterThanOrEqual(before.authTime);
    await loginWithPassword(browser, authorizeUrl(p.issuer, { prompt: "login" }), "bob", "bob-password");
    const bobs = await sessionOf();
    expect(bobs.sub).toBe("E10002");
    expect(bobs.sid).not.toBe(before.sid);
    expect(bobs.clients).toEqual(["demo-web"]);
  });

  it("prompt=login shows the login page, saying who is signed in", async () => {
    const browser = await loggedInBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer, { prompt: "login" }));
    expect(page.text).toContain("Alice Chen");
    expect(page.text).toContain('name="password"');
  });

  it("/Account/Login behaves as prompt=login", async () => {
    const browser = await loggedInBrowser();
    const answer = await browser.get(authorizeUrl(p.issuer, {}, "/Account/Login"));
    expect(answer.location).toMatch(/\/interaction\//);
  });

  it("prompt=force_login removes the session", async () => {
    const browser = await loggedInBrowser();
    const answer = await browser.get(authorizeUrl(p.issuer, { prompt: "force_login" }));
    expect(answer.location).toMatch(/\/interaction\//);
    expect(answer.headers.getSetCookie().some((c) => /^portcullis_session=;/.test(c))).toBe(true);
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("error")).toBe("login_required");
  });

  it("max_age=0 requires a fresh login; a large max_age does not", async () => {
    const browser = await loggedInBrowser();
    expect((await browser.get(authorizeUrl(p.issuer, { max_age: "0" }))).location).toMatch(/\/interaction\//);
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { max_age: "3600" }))).get("code")).toBeTruthy();
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { max_age: "0", prompt: "none" }))).get("error")).toBe("login_required");
  });
});

describe("login page", () => {
  it("answers a wrong password, an unknown user and a locked account identically", async () => {
    const normalise = (html: string) =>
      html
        .replace(/value="[\w-]{20,}"/g, "")
        .replace(/\/interaction\/[\w-]+/g, "")
        .replace(/value="[^"]*" autofocus|value="[^"]*"/g, "");
    const attempt = async (username: string) => {
      const browser = new RawBrowser();
      const page = await openLoginPage(browser, authorizeUrl(p.issuer));
      const answer = await submitPassword(browser, page, username, "wrong-password");
      expect(answer.status).toBe(200);
      return normalise(answer.text);
    };
    const wrong = await attempt("bob");
    expect(wrong).toContain("incorrect");
    expect(await attempt("no-such-user")).toBe(wrong);
    // Lock carol-like account: use up bob's attempts, then the right password gets the same page.
    for (let i = 0; i < 5; i++) await attempt("bob");
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    const locked = await submitPassword(browser, page, "bob", "bob-password");
    expect(normalise(locked.text)).toBe(wrong);
  });

  it("refuses a form without the CSRF token", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    const answer = await browser.post(page.url, { event: "SUBMIT_PASSWORD", username: "alice", password: "alice-password" });
    expect(answer.status).toBe(403);
    expect(answer.location).toBeUndefined();
  });

  it("refuses the interaction in another browser", async () => {
    const page = await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer));
    // A browser without any cookie is first given a test cookie (to tell a copied link from blocked cookies).
    const otherBrowser = new RawBrowser();
    const tested = await otherBrowser.get(page.url);
    expect(tested.status).toBe(303);
    const other = await otherBrowser.follow(tested);
    expect(other.status).toBe(400);
    expect(other.text).not.toContain('name="password"');
  });

  it("completes an interaction once", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    const cookies = new Map(browser.cookies);
    expect(responseParams(await submitPassword(browser, page, "alice", "alice-password")).get("code")).toBeTruthy();
    for (const [k, v] of cookies) browser.cookies.set(k, v);
    const again = await submitPassword(browser, page, "alice", "alice-password");
    expect(again.status).toBe(400);
  });

  it("denies framing of the login page", async () => {
    const page = await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer));
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("lets /connect/iframe_authz be framed only by the client's registered origins, and finishes in the top window", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer, {}, "/connect/iframe_authz"));
    expect(page.headers.get("x-frame-options")).toBeNull();
    expect(page.headers.get("content-security-policy")).toContain(
      "frame-ancestors http://localhost:3001 http://127.0.0.1:3001 http://localhost:3005;",
    );
    const done = await submitPassword(browser, page, "alice", "alice-password");
    expect(done.status).toBe(200);
    expect(done.text).toContain("window.top");
    // The page that leaves the iframe must itself be allowed in it.
    expect(done.headers.get("content-security-policy")).toContain(
      "frame-ancestors http://localhost:3001 http://127.0.0.1:3001 http://localhost:3005;",
    );
    expect(done.text).toContain("http://localhost:3001/callback?code=");
  });

  it("renders in the language of lang, else Accept-Language", async () => {
    const jp = await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer, { lang: "jp" }));
    expect(jp.text).toContain('<html lang="ja">');
    const browser = new RawBrowser();
    const start = await browser.get(authorizeUrl(p.issuer));
    const tw = await browser.get(start.location!, { "accept-language": "zh-TW,zh;q=0.9" });
    expect(tw.text).toContain('<html lang="zh-Hant">');
  });
});

describe("state", () => {
  it("round-trips any string byte for byte", async () => {
    const browser = await loggedInBrowser();
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200, unit: "grapheme" }), async (state) => {
        const answer = await browser.get(authorizeUrl(p.issuer, { state, prompt: "none" }));
        expect(responseParams(answer).get("state")).toBe(state);
      }),
      { numRuns: 40 },
    );
  });
});

describe("discovery of the authorization endpoint", () => {
  it("advertises exactly what authorize serves", async () => {
    const doc = (await (await fetch(`${p.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.authorization_endpoint).toBe(`${p.issuer}/connect/authorize`);
    expect(doc.response_types_supported).toEqual(["code"]);
    expect(doc.response_modes_supported).toEqual(["query", "fragment", "form_post"]);
    expect(doc.prompt_values_supported).toEqual(["none", "login", "force_login", "consent"]);
    expect(doc.code_challenge_methods_supported).toEqual(["S256"]); // no demo client allows plain (pkce-discovery.test.ts)
    expect(doc.authorization_response_iss_parameter_supported).toBe(true);
    // Each advertised response mode works.
    for (const mode of doc.response_modes_supported as string[]) {
      const answer = await authorize({ prompt: "none", response_mode: mode });
      expect(answer.status === 303 || answer.text.includes("login_required")).toBe(true);
    }
  });
});

describe("cookies behind https", () => {
  let secure: TestProvider;
  beforeAll(async () => {
    const port = 40000 + Math.floor(Math.random() * 20000);
    secure = await startTestProvider({ issuer: `https://login.example.test:${port}`, edits: { "provider.yaml": { "listen.port": 0 } } });
  });
  afterAll(() => secure?.close());

  it("are Secure, and carry the __Host- / __Secure- prefixes", async () => {
    const browser = new RawBrowser();
    // The issuer is https behind a (simulated) TLS-terminating proxy; requests reach the listener over http.
    const url = authorizeUrl(secure.url);
    const start = await browser.get(url);
    const interaction = start.headers.getSetCookie().find((c) => c.includes("portcullis_interaction="))!;
    expect(interaction).toMatch(/^__Secure-portcullis_interaction=/);
    expect(interaction).toMatch(/; Secure/i);
    const page = await browser.get(`${secure.url}${new URL(start.location!).pathname}`);
    const done = await submitPassword(browser, page, "alice", "alice-password");
    const session = done.headers.getSetCookie().find((c) => c.includes("portcullis_session="))!;
    expect(session).toMatch(/^__Host-portcullis_session=/);
    expect(session).toMatch(/; Secure/i);
    expect(session).toMatch(/; Path=\//);
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
  });
});
