import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoginInteraction } from "../../src/runtime/interaction.ts";
import { vendorSignature } from "../../src/login-policy/vendor-signature.ts";
import { authorizeUrl, loginWithPassword, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";
import { redeemCode, SPA, SPA_REDIRECT, VERIFIER, WEB, WEB_REDIRECT } from "../support/code-grant.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { DEMO_VENDOR_KEY } from "../support/vendor-links.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Pushed authorization requests (RFC 9126) over raw HTTP: the endpoint (client authentication as at the
 * token endpoint, authorize's checks answered as JSON, 201 with a short-lived request_uri), and authorize
 * with the request_uri: the pushed parameters are the request, a browser cannot add to or change them,
 * the request_uri works once and not after it expired, and a client that requires pushed requests gets
 * no login from a plain one.
 */
const PAR = "/connect/par";
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");
const VENDOR = { id: "demo-vendor", secret: "demo-vendor-secret", redirect: "http://localhost:3004/callback" } as const;

/** demo-web's authorization request with PKCE; `extra` adds or replaces (undefined removes). */
function webRequest(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    client_id: WEB.id,
    redirect_uri: WEB_REDIRECT,
    response_type: "code",
    scope: "openid profile",
    state: "pushed-state",
    nonce: "pushed-nonce",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    ...extra,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Pushes `form` as demo-web (client_secret_basic unless `headers` say otherwise). */
function push(
  p: TestProvider,
  form: Record<string, string>,
  headers: Record<string, string> = { authorization: basic(WEB.id, WEB.secret) },
) {
  return postForm(p.url + PAR, form, headers);
}

/** Pushes and returns the request_uri (the push must succeed). */
async function pushed(p: TestProvider, form: Record<string, string> = webRequest(), headers?: Record<string, string>): Promise<string> {
  const answer = await push(p, form, headers);
  expect(answer.status, answer.text).toBe(201);
  return answer.json!.request_uri as string;
}

/** The authorize URL a client sends the browser to after a push; `extra` is what a browser might add. */
function parAuthorizeUrl(
  p: TestProvider,
  requestUri: string,
  clientId: string = WEB.id,
  extra: Record<string, string> = {},
  path = "/connect/authorize",
) {
  const url = new URL(path, p.issuer);
  for (const [name, value] of Object.entries({ client_id: clientId, request_uri: requestUri, ...extra })) url.searchParams.set(name, value);
  return url.href;
}

/** The login interaction a login page belongs to (its URL is /interaction/<id>). */
async function interactionOf(p: TestProvider, page: Answer): Promise<LoginInteraction> {
  const id = new URL(page.url).pathname.split("/").pop()!;
  const interaction = await p.provider.interactions.peek(id);
  expect(interaction?.kind).toBe("login");
  return interaction as LoginInteraction;
}

/** An error page (not a redirect) with this error code. */
function expectErrorPage(answer: Answer, error: string): void {
  expect(answer.location).toBeUndefined();
  expect(answer.status).toBe(400);
  expect(answer.text).toContain(error);
}

let p: TestProvider;
let offsetMs = 0;

beforeAll(async () => {
  p = await startTestProvider({
    clock: () => Date.now() + offsetMs,
    // demo-spa requires pushed requests; demo-web does not.
    edits: { "clients.yaml": { "clients.1.require_pushed_authorization_requests": true } },
  });
});
afterAll(() => p?.close());

describe("the pushed authorization request endpoint", () => {
  it("is in discovery; request_uri_parameter_supported stays false (it means request objects by reference)", async () => {
    const meta = (await send(`${p.url}/.well-known/openid-configuration`)).json!;
    expect(meta.pushed_authorization_request_endpoint).toBe(`${p.issuer}${PAR}`);
    expect(meta.require_pushed_authorization_requests).toBe(false);
    expect(meta.request_uri_parameter_supported).toBe(false);
  });

  it("answers 201 with a urn request_uri and a short expires_in, not to be cached", async () => {
    const answer = await push(p, webRequest());
    expect(answer.status).toBe(201);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.json!.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    expect(answer.json!.expires_in).toBe(60);
  });

  it("authenticates the client as the token endpoint does: client_secret_post too, and public clients by client_id with PKCE", async () => {
    expect((await push(p, { ...webRequest(), client_secret: WEB.secret }, {})).status).toBe(201);
    const spa = webRequest({ client_id: SPA.id, redirect_uri: SPA_REDIRECT });
    expect((await push(p, spa, {})).status).toBe(201);
  });

  it.each([
    ["a wrong secret (Basic)", webRequest(), { authorization: basic(WEB.id, "wrong") }],
    ["a wrong secret (client_secret_post)", { ...webRequest(), client_secret: "wrong" }, {}],
    ["no secret for a confidential client", webRequest(), {}],
    ["an unknown client", webRequest({ client_id: "nobody" }), {}],
    ["a secret for a public client", { ...webRequest({ client_id: SPA.id, redirect_uri: SPA_REDIRECT }), client_secret: "x" }, {}],
  ])("refuses %s with 401 invalid_client", async (_, form, headers) => {
    const answer = await push(p, form, headers);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: "invalid_client" });
  });

  it("names Basic in WWW-Authenticate when Basic failed", async () => {
    const answer = await push(p, webRequest(), { authorization: basic(WEB.id, "wrong") });
    expect(answer.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it.each([
    ["an unregistered redirect_uri", webRequest({ redirect_uri: "https://evil.example/cb" }), "invalid_request"],
    ["no redirect_uri", webRequest({ redirect_uri: undefined }), "invalid_request"],
    ["response_type token", webRequest({ response_type: "token" }), "unsupported_response_type"],
    ["no response_type", webRequest({ response_type: undefined }), "invalid_request"],
    ["a scope without openid", webRequest({ scope: "profile" }), "invalid_scope"],
    ["a scope the client may not have", webRequest({ scope: "openid nope" }), "invalid_scope"],
    ["code_challenge_method plain", webRequest({ code_challenge: "a".repeat(43), code_challenge_method: "plain" }), "invalid_request"],
    ["an unknown prompt", webRequest({ prompt: "sometimes" }), "invalid_request"],
    ["a max_age that is not a number", webRequest({ max_age: "soon" }), "invalid_request"],
    ["an undeclared login_type", webRequest({ login_type: "NoSuchType" }), "invalid_request"],
    ["an unknown fa method", webRequest({ login_type: "Mfa", login_hint: "alice", fa: "carrier-pigeon" }), "invalid_request"],
    ["Mfa without login_hint", webRequest({ login_type: "Mfa" }), "invalid_request"],
    ["a request_uri inside the push", webRequest({ request_uri: "urn:ietf:params:oauth:request_uri:abc" }), "invalid_request"],
    ["a request object", webRequest({ request: "eyJhbGciOiJub25lIn0.eyJzdGF0ZSI6InMifQ." }), "request_not_supported"],
    ["a client_id that is not the authenticated client", webRequest({ client_id: "demo-portal" }), "invalid_request"],
    ["an id_token_hint we did not sign", webRequest({ id_token_hint: "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." }), "invalid_request"],
  ])("answers %s with JSON 400 %s, never a redirect", async (_, form, error) => {
    const answer = await push(p, form);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers.get("location")).toBeNull();
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.json).toMatchObject({ error });
  });

  it("refuses a repeated parameter", async () => {
    const body = `${new URLSearchParams(webRequest())}&scope=openid`;
    const answer = await postForm(p.url + PAR, body, { authorization: basic(WEB.id, WEB.secret) });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_request" });
  });

  it("checks a MyVendor signature when it is pushed", async () => {
    const vendor = { authorization: basic(VENDOR.id, VENDOR.secret) };
    const hint = "demo-vendor:acct-7";
    const form = {
      client_id: VENDOR.id,
      redirect_uri: VENDOR.redirect,
      response_type: "code",
      scope: "openid",
      login_type: "MyVendor",
      login_hint: hint,
    };
    const good = await push(p, { ...form, signature: vendorSignature(VENDOR.redirect, hint, DEMO_VENDOR_KEY) }, vendor);
    expect(good.status, good.text).toBe(201);
    // Authorize plans it again, signature and all: the vendor login's page.
    const page = await new RawBrowser().get(parAuthorizeUrl(p, good.json!.request_uri as string, VENDOR.id));
    expect(page.location).toContain("/interaction/");
    const bad = await push(p, { ...form, signature: vendorSignature(VENDOR.redirect, hint, "another-key") }, vendor);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: "invalid_request" });
  });

  it("counts a public client's pushes against the address's login budget (429), not a confidential client's", async () => {
    const tight = await startTestProvider({ edits: { "provider.yaml": { "security.login_requests_per_ip.max": 2 } } });
    try {
      const spa = webRequest({ client_id: SPA.id, redirect_uri: SPA_REDIRECT });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await push(tight, spa, {}));
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 429]);
      expect(answers[2]!.json).toMatchObject({ error: "temporarily_unavailable" });
      for (let i = 0; i < 3; i++) expect((await push(tight, webRequest())).status).toBe(201);
    } finally {
      await tight.close();
    }
  });

  it("answers GET with 405", async () => {
    const answer = await send(p.url + PAR);
    expect(answer.status).toBe(405);
  });
});

describe("authorize with a pushed request", () => {
  it("logs in with the pushed request and returns its state; the code is redeemed with the pushed PKCE", async () => {
    const requestUri = await pushed(p);
    const response = responseParams(await loginWithPassword(new RawBrowser(), parAuthorizeUrl(p, requestUri)));
    expect(response.get("state")).toBe("pushed-state");
    expect(response.get("iss")).toBe(p.issuer);
    const tokens = await redeemCode(p, response.get("code")!);
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.json!.id_token).toBeTypeOf("string");
  });

  it("carries every spec parameter to the login plan: login_type, fa, login_hint, acr_values, lang, prompt, max_age", async () => {
    const requestUri = await pushed(
      p,
      webRequest({
        login_type: "Mfa",
        fa: "email,totp",
        login_hint: "alice",
        acr_values: "chnl_info",
        lang: "jp",
        prompt: "login",
        max_age: "600",
      }),
    );
    const browser = new RawBrowser();
    const page = await browser.follow(await browser.get(parAuthorizeUrl(p, requestUri)));
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    expect(page.text).toContain('<html lang="ja">');
    const { request } = await interactionOf(p, page);
    expect(request).toMatchObject({
      loginType: "Mfa",
      loginHint: "alice",
      lang: "jp",
      prompt: ["login"],
      maxAge: 600,
      state: "pushed-state",
    });
    expect(request.acrValues).toEqual(["chnl_info"]);
    expect(request.plan).toMatchObject({ loginTypeName: "Mfa", flow: "second_factor", methods: ["email", "totp"] });
    expect(request.plan!.claims.channelInfo).toBe(true);
  });

  it("runs the pushed request unchanged whatever the browser adds to the query", async () => {
    const requestUri = await pushed(p, webRequest({ lang: "jp" }));
    const browser = new RawBrowser();
    const tampered = parAuthorizeUrl(p, requestUri, WEB.id, {
      login_type: "MfaTotp",
      fa: "sms",
      acr_values: "2fa must_bfido",
      prompt: "none",
      lang: "en",
      login_hint: "bob",
      max_age: "0",
      redirect_uri: "http://127.0.0.1:3001/callback",
      state: "browser-state",
      scope: "openid profile email",
      code_challenge: "b".repeat(43),
    });
    // prompt=none would have answered login_required: the pushed request (no prompt) shows the default login instead.
    const page = await openLoginPage(browser, tampered);
    expect(page.text).toContain('<html lang="ja">');
    const { request } = await interactionOf(p, page);
    expect(request).toMatchObject({
      redirectUri: WEB_REDIRECT,
      state: "pushed-state",
      scopes: ["openid", "profile"],
      prompt: [],
      codeChallenge: CHALLENGE,
    });
    expect(request.loginType).toBeUndefined();
    expect(request.acrValues).toBeUndefined();
    expect(request.loginHint).toBeUndefined();
    expect(request.maxAge).toBeUndefined();
    expect(request.plan).toMatchObject({ flow: "single_factor", acrMatched: [] });
    const done = await submitPassword(browser, page, "alice", "alice-password");
    expect(done.location!.startsWith(`${WEB_REDIRECT}?`)).toBe(true);
    const response = responseParams(done);
    expect(response.get("state")).toBe("pushed-state");
    expect(response.get("login_type")).toBeNull();
    // The code is bound to the pushed PKCE challenge, not to the one in the query.
    expect((await redeemCode(p, response.get("code")!)).status).toBe(200);
  });

  it("serves pushed prompt=none and id_token_hint from the browser's session, and answers login_required to the client without one", async () => {
    const browser = new RawBrowser();
    const first = responseParams(await loginWithPassword(browser, parAuthorizeUrl(p, await pushed(p))));
    const idToken = (await redeemCode(p, first.get("code")!)).json!.id_token as string;
    const silent = await pushed(p, webRequest({ prompt: "none", id_token_hint: idToken, state: "silent" }));
    const again = responseParams(await browser.get(parAuthorizeUrl(p, silent)));
    expect(again.get("code")).toBeTruthy();
    expect(again.get("state")).toBe("silent");
    const stranger = responseParams(await new RawBrowser().get(parAuthorizeUrl(p, await pushed(p, webRequest({ prompt: "none" })))));
    expect(stranger.get("error")).toBe("login_required");
    expect(stranger.get("state")).toBe("pushed-state");
  });

  it("offers no trusted-app link on its login page: the link would be a plain request, open to editing", async () => {
    const plain = await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer));
    expect(plain.text).toContain("acmeauth://sso/oidc?");
    const page = await openLoginPage(new RawBrowser(), parAuthorizeUrl(p, await pushed(p)));
    expect(page.text).toContain('name="password"');
    expect(page.text).not.toContain("acmeauth://");
  });

  it("refuses a used request_uri with an invalid_request_uri page", async () => {
    const requestUri = await pushed(p);
    const first = await new RawBrowser().get(parAuthorizeUrl(p, requestUri));
    expect(first.status).toBe(303);
    expectErrorPage(await new RawBrowser().get(parAuthorizeUrl(p, requestUri)), "invalid_request_uri");
  });

  it("refuses an unknown request_uri, and one used with another client_id (which spends it)", async () => {
    expectErrorPage(await new RawBrowser().get(parAuthorizeUrl(p, "urn:ietf:params:oauth:request_uri:made-up")), "invalid_request_uri");
    const requestUri = await pushed(p);
    expectErrorPage(await new RawBrowser().get(parAuthorizeUrl(p, requestUri, "demo-portal")), "invalid_request_uri");
    expectErrorPage(await new RawBrowser().get(parAuthorizeUrl(p, requestUri)), "invalid_request_uri");
  });

  it("needs client_id with the request_uri", async () => {
    const requestUri = await pushed(p);
    const url = new URL(parAuthorizeUrl(p, requestUri));
    url.searchParams.delete("client_id");
    expectErrorPage(await new RawBrowser().get(url.href), "invalid_request");
  });

  it("refuses an expired request_uri (the provider's clock)", async () => {
    const requestUri = await pushed(p);
    offsetMs = 61_000;
    try {
      expectErrorPage(await new RawBrowser().get(parAuthorizeUrl(p, requestUri)), "invalid_request_uri");
    } finally {
      offsetMs = 0;
    }
  });

  it("still uses a request_uri just before it expires", async () => {
    const requestUri = await pushed(p);
    offsetMs = 55_000;
    try {
      expect((await new RawBrowser().get(parAuthorizeUrl(p, requestUri))).status).toBe(303);
    } finally {
      offsetMs = 0;
    }
  });

  it("still declines a request object by reference (a request_uri that is not a pushed request's)", async () => {
    const answer = await new RawBrowser().get(authorizeUrl(p.issuer, { request_uri: "https://client.example/request.jwt" }));
    expect(responseParams(answer).get("error")).toBe("request_uri_not_supported");
  });
});

describe("clients that require pushed requests", () => {
  it("refuse demo-spa's plain request at every authorize address, to its redirect_uri", async () => {
    for (const path of ["/connect/authorize", "/connect/iframe_authz", "/Account/Login", "/eID/authorize"]) {
      const plain = authorizeUrl(
        p.issuer,
        { client_id: SPA.id, redirect_uri: SPA_REDIRECT, code_challenge: CHALLENGE, code_challenge_method: "S256" },
        path,
      );
      const answer = await new RawBrowser().get(plain);
      const response = path === "/connect/iframe_authz" ? iframeResponse(answer) : responseParams(answer);
      expect(response.get("error"), path).toBe("invalid_request");
      expect(response.get("error_description"), path).toContain("push");
    }
  });

  it("log demo-spa in with a pushed request", async () => {
    const requestUri = await pushed(p, webRequest({ client_id: SPA.id, redirect_uri: SPA_REDIRECT }), {});
    const response = responseParams(
      await loginWithPassword(new RawBrowser(), parAuthorizeUrl(p, requestUri, SPA.id), "bob", "bob-password"),
    );
    const tokens = await redeemCode(p, response.get("code")!, { redirect_uri: SPA_REDIRECT }, SPA);
    expect(tokens.status, tokens.text).toBe(200);
  });

  it("do not hold back the others: demo-web's plain request still gets a login page", async () => {
    expect((await new RawBrowser().get(authorizeUrl(p.issuer))).status).toBe(303);
    expect((await new RawBrowser().get(authorizeUrl(p.issuer))).location).toContain("/interaction/");
  });

  it("is every client when provider.yaml requires it, and discovery says so", async () => {
    const strict = await startTestProvider({ edits: { "provider.yaml": { require_pushed_authorization_requests: true } } });
    try {
      const meta = (await send(`${strict.url}/.well-known/openid-configuration`)).json!;
      expect(meta.require_pushed_authorization_requests).toBe(true);
      expect(responseParams(await new RawBrowser().get(authorizeUrl(strict.issuer))).get("error")).toBe("invalid_request");
      const requestUri = await pushed(strict);
      const response = responseParams(await loginWithPassword(new RawBrowser(), parAuthorizeUrl(strict, requestUri)));
      expect((await redeemCode(strict, response.get("code")!)).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe("the other authorize addresses with a pushed request", () => {
  it("/connect/iframe_authz runs it framed, for the client's registered origins only", async () => {
    const requestUri = await pushed(p);
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, parAuthorizeUrl(p, requestUri, WEB.id, {}, "/connect/iframe_authz"));
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors http://localhost:3001 http://127.0.0.1:3001");
    const done = await submitPassword(browser, page, "alice", "alice-password");
    expect(done.text).toContain(`${WEB_REDIRECT}?code=`);
    expect(done.text).toContain("pushed-state");
  });

  it("/Account/Login runs it with prompt=login added (a fresh login, never less than pushed)", async () => {
    const requestUri = await pushed(p);
    const page = await openLoginPage(new RawBrowser(), parAuthorizeUrl(p, requestUri, WEB.id, {}, "/Account/Login"));
    expect((await interactionOf(p, page)).request.prompt).toEqual(["login"]);
  });

  it("/eID/authorize refuses a pushed request that does not ask for the eID login: the address does not choose it", async () => {
    const requestUri = await pushed(p);
    const response = responseParams(await new RawBrowser().get(parAuthorizeUrl(p, requestUri, WEB.id, {}, "/eID/authorize")));
    expect(response.get("error")).toBe("invalid_request");
    expect(response.get("state")).toBe("pushed-state");
  });

  it("/eID/authorize runs a pushed eID request: the browser goes to the upstream eID provider", async () => {
    const requestUri = await pushed(p, webRequest({ login_type: "eID" }));
    const answer = await new RawBrowser().get(parAuthorizeUrl(p, requestUri, WEB.id, {}, "/eID/authorize"));
    expect(answer.status).toBe(303);
    expect(new URL(answer.location!).origin).not.toBe(new URL(p.issuer).origin);
  });
});

/** The authorization response an iframe_authz page hands to the top window (its script sets the top window's location). */
function iframeResponse(answer: Answer): URLSearchParams {
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const href = /window\.top\.location\.href = "([^"]+)"/.exec(answer.text)?.[1];
  expect(href).toBeDefined();
  return new URL(href!.replaceAll("\\u0026", "&")).searchParams;
}
