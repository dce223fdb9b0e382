import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/backends.ts";
import { choosePassword, loginWithPassword, openLoginPage, submitPassword } from "../support/browser-login.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startAuthorization, type PendingAuthorization } from "../support/rp-authorization.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * The authorization code flow as a certified relying-party library runs it: openid-client v6 with
 * ID-token signature checks on, a raw browser that logs in and stops at the redirect to the client,
 * and that redirect handed back to the library. Besides the happy path, the behaviours the OpenID
 * Foundation's Basic OP test plan checks (prompt, max_age, id_token_hint, code reuse, redirect_uri,
 * POSTed requests, unknown parameters, acr_values).
 */
const WEB_CALLBACK = "http://localhost:3001/callback";
const SPA_CALLBACK = "http://localhost:3002/callback";
const WEB_POST_LOGOUT = "http://localhost:3001/";

type Credentials = readonly [username: string, password: string];
const ALICE: Credentials = ["alice", "alice-password"];
const BOB: Credentials = ["bob", "bob-password"];

let op: TestProvider;

/** A relying party: its openid-client configuration and the redirect URI it registered. */
interface RelyingParty {
  config: oidc.Configuration;
  redirectUri: string;
}

/** What the relying party keeps between sending the browser off and getting it back. */
type PendingLogin = PendingAuthorization;

async function relyingParty(clientId: string, auth: oidc.ClientAuth, redirectUri: string): Promise<RelyingParty> {
  const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];
  return { config: await oidc.discovery(new URL(op.issuer), clientId, undefined, auth, { execute }), redirectUri };
}

const webApp = (auth = oidc.ClientSecretPost("demo-web-secret")) => relyingParty("demo-web", auth, WEB_CALLBACK);
const spa = () => relyingParty("demo-spa", oidc.None(), SPA_CALLBACK);

/** An authorize URL with PKCE S256, state and nonce; `params` add to or replace the defaults. */
function startLogin(rp: RelyingParty, params: Record<string, string> = {}): Promise<PendingLogin> {
  return startAuthorization(rp.config, { redirect_uri: rp.redirectUri, scope: "openid profile", ...params });
}

/** Hands the browser's redirect to the client over to openid-client, which redeems the code. */
function finishLogin(rp: RelyingParty, pending: PendingLogin, answer: Answer) {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  const callback = new URL(answer.location!);
  expect(callback.origin + callback.pathname).toBe(rp.redirectUri);
  return oidc.authorizationCodeGrant(rp.config, callback, pending.checks);
}

/** A full login through the password form, in `browser`; the token response. */
async function signIn(rp: RelyingParty, browser: RawBrowser, params: Record<string, string> = {}, user: Credentials = ALICE) {
  const pending = await startLogin(rp, params);
  return finishLogin(rp, pending, await loginWithPassword(browser, pending.url.href, ...user));
}

/** An authorize request that needs no login page (SSO, prompt=none); the token response. */
async function signInSilently(rp: RelyingParty, browser: RawBrowser, params: Record<string, string> = {}) {
  const pending = await startLogin(rp, params);
  return finishLogin(rp, pending, await browser.get(pending.url.href));
}

/** Whether the API resource sees an access token as active (introspection). */
async function isActive(accessToken: string): Promise<unknown> {
  const answer = await postForm(
    `${op.url}/connect/introspect`,
    { token: accessToken },
    { authorization: basic("acme-api", "acme-api-secret") },
  );
  expect(answer.status).toBe(200);
  return answer.json!.active;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(availableBackends())("the code flow driven by openid-client on the $name store", ({ url: storeUrl }) => {
  beforeAll(async () => {
    op = await startTestProvider({ storeUrl });
  });
  afterAll(() => op?.close());

  describe("the relying party's whole story", () => {
    it("discovers the authorization, token, userinfo and end-session endpoints with PKCE S256 and RFC 9207 iss", async () => {
      const { config } = await webApp();
      const meta = config.serverMetadata();
      expect(meta.issuer).toBe(op.issuer);
      expect(meta.authorization_endpoint).toBe(`${op.issuer}/connect/authorize`);
      expect(meta.token_endpoint).toBe(`${op.issuer}/connect/token`);
      expect(meta.userinfo_endpoint).toBe(`${op.issuer}/connect/userinfo`);
      expect(meta.end_session_endpoint).toBe(`${op.issuer}/connect/endsession`);
      expect(meta.supportsPKCE()).toBe(true);
      expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    });

    it.each([
      ["client_secret_post", oidc.ClientSecretPost("demo-web-secret")],
      ["client_secret_basic", oidc.ClientSecretBasic("demo-web-secret")],
    ])("signs alice in to demo-web with PKCE, state and nonce (%s), and her userinfo matches", async (_, auth) => {
      const rp = await webApp(auth);
      const tokens = await signIn(rp, new RawBrowser(), { scope: "openid profile email" });
      const claims = tokens.claims()!;
      expect(claims).toMatchObject({ iss: op.issuer, sub: "E10001", aud: "demo-web", amr: ["password"] });
      expect(claims.auth_time).toBeTypeOf("number");
      expect(claims.sid).toBeTypeOf("string");
      expect(tokens.token_type.toLowerCase()).toBe("bearer");
      expect(tokens.scope).toBe("openid profile email");
      expect(tokens.refresh_token).toBeUndefined(); // no offline_access asked
      const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, "E10001");
      expect(userinfo).toMatchObject({ sub: "E10001", name: "Alice Chen", emp_no: "E10001", email: "alice@example.com" });
    });

    it("signs bob in to the public demo-spa with PKCE and no client secret", async () => {
      const rp = await spa();
      const tokens = await signIn(rp, new RawBrowser(), {}, BOB);
      expect(tokens.claims()).toMatchObject({ iss: op.issuer, sub: "E10002", aud: "demo-spa" });
      expect(tokens.refresh_token).toBeUndefined();
      const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, "E10002");
      expect(userinfo).toMatchObject({ sub: "E10002", name: "Bob Tran" });
      expect(userinfo.email).toBeUndefined(); // email scope not asked
    });

    it("rotates the refresh token: the new one works, the old one is then invalid_grant, and that reuse ends the family", async () => {
      const rp = await webApp();
      const first = await signIn(rp, new RawBrowser(), { scope: "openid profile offline_access acme" });
      const oldRefreshToken = first.refresh_token!;
      expect(oldRefreshToken).toBeTypeOf("string");

      const second = await oidc.refreshTokenGrant(rp.config, oldRefreshToken);
      expect(second.refresh_token).toBeTypeOf("string");
      expect(second.refresh_token).not.toBe(oldRefreshToken);
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.claims()).toMatchObject({ sub: "E10001", auth_time: first.claims()!.auth_time, sid: first.claims()!.sid });
      expect(await oidc.fetchUserInfo(rp.config, second.access_token, "E10001")).toMatchObject({ sub: "E10001" });

      await expect(oidc.refreshTokenGrant(rp.config, oldRefreshToken)).rejects.toMatchObject({ error: "invalid_grant", status: 400 });
      // Reuse of a rotated token revokes its whole family (DESIGN "lifetimes").
      await expect(oidc.refreshTokenGrant(rp.config, second.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant", status: 400 });
      expect(await isActive(second.access_token)).toBe(false);
    });

    it("revokes an access token: introspection and userinfo refuse it, and the refresh token still works", async () => {
      const rp = await webApp(oidc.ClientSecretBasic("demo-web-secret"));
      const tokens = await signIn(rp, new RawBrowser(), { scope: "openid profile offline_access acme" });
      expect(await isActive(tokens.access_token)).toBe(true);

      await oidc.tokenRevocation(rp.config, tokens.access_token, { token_type_hint: "access_token" });
      expect(await isActive(tokens.access_token)).toBe(false);
      await expect(oidc.fetchUserInfo(rp.config, tokens.access_token, "E10001")).rejects.toMatchObject({ status: 401 });
      expect((await oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).access_token).toBeTypeOf("string");
    });

    it("revokes a refresh token: it no longer refreshes, and the access token issued with it is inactive", async () => {
      const rp = await webApp();
      const tokens = await signIn(rp, new RawBrowser(), { scope: "openid profile offline_access acme" });

      await oidc.tokenRevocation(rp.config, tokens.refresh_token!, { token_type_hint: "refresh_token" });
      await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant", status: 400 });
      expect(await isActive(tokens.access_token)).toBe(false);
    });

    it("ends the session: back to the post-logout URI with state, and prompt=none is then login_required", async () => {
      const rp = await webApp();
      const browser = new RawBrowser();
      const tokens = await signIn(rp, browser);
      const state = oidc.randomState();
      const logout = oidc.buildEndSessionUrl(rp.config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: WEB_POST_LOGOUT,
        state,
      });

      const answer = await browser.get(logout.href);
      expect(answer.status, answer.text.slice(0, 300)).toBe(303);
      expect(answer.location).toBe(`${WEB_POST_LOGOUT}?state=${state}`);
      expect(browser.cookies.has("portcullis_session")).toBe(false);

      await expect(signInSilently(rp, browser, { prompt: "none" })).rejects.toMatchObject({
        name: "AuthorizationResponseError",
        error: "login_required",
      });
    });
  });

  describe("what the OpenID Foundation's Basic OP plan checks", () => {
    // The two waits overlap.
    it.concurrent("prompt=login asks for the password again and the new ID token has a later auth_time", async () => {
      const rp = await webApp();
      const browser = new RawBrowser();
      const first = (await signIn(rp, browser)).claims()!;
      await sleep(1100);
      const pending = await startLogin(rp, { prompt: "login" });
      const page = await openLoginPage(browser, pending.url.href);
      expect(page.text).toContain('name="password"');
      const second = (await finishLogin(rp, pending, await submitPassword(browser, page, ...ALICE))).claims()!;
      expect(second.sub).toBe(first.sub);
      expect(second.auth_time!).toBeGreaterThan(first.auth_time!);
    });

    it.concurrent("max_age=1 two seconds after the login sends the browser to the login page, not to the client", async () => {
      const rp = await webApp();
      const browser = new RawBrowser();
      const first = (await signIn(rp, browser)).claims()!;
      await sleep(2000);
      const pending = await startLogin(rp, { max_age: "1" });
      const answer = await browser.get(pending.url.href);
      expect(answer.status).toBe(303);
      expect(answer.location).toMatch(new RegExp(`^${op.issuer}/interaction/[\\w-]+$`));
      const page = await browser.follow(answer);
      const second = (await finishLogin(rp, pending, await submitPassword(browser, page, ...ALICE))).claims()!;
      expect(second.auth_time!).toBeGreaterThan(first.auth_time!);
    });

    it("prompt=none without a session is login_required at the client", async () => {
      const rp = await webApp();
      const failure = signInSilently(rp, new RawBrowser(), { prompt: "none" });
      await expect(failure).rejects.toBeInstanceOf(oidc.AuthorizationResponseError);
      await expect(failure).rejects.toMatchObject({ error: "login_required" });
    });

    it("prompt=none with an id_token_hint gets a code for the same subject", async () => {
      const rp = await webApp();
      const browser = new RawBrowser();
      const first = await signIn(rp, browser, {}, BOB);
      const again = await signInSilently(rp, browser, { prompt: "none", id_token_hint: first.id_token! });
      expect(again.claims()!.sub).toBe("E10002");
      expect(again.claims()!.sid).toBe(first.claims()!.sid);
    });

    it("refuses a reused code with invalid_grant and revokes the access token issued for it", async () => {
      const rp = await webApp();
      const pending = await startLogin(rp, { scope: "openid acme" });
      const answer = await loginWithPassword(new RawBrowser(), pending.url.href);
      const tokens = await finishLogin(rp, pending, answer);
      expect(await isActive(tokens.access_token)).toBe(true);

      await expect(finishLogin(rp, pending, answer)).rejects.toMatchObject({ error: "invalid_grant", status: 400 });
      expect(await isActive(tokens.access_token)).toBe(false);
    });

    it("shows an error page for an unregistered redirect_uri and never redirects", async () => {
      const rp = await webApp();
      const pending = await startLogin(rp, { redirect_uri: "http://localhost:3001/elsewhere" });
      const answer = await new RawBrowser().get(pending.url.href);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeUndefined();
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(answer.text).toContain("invalid_request");
    });

    it("serves an authorize request sent as a POST form", async () => {
      const rp = await webApp();
      const pending = await startLogin(rp);
      const browser = new RawBrowser();
      const endpoint = rp.config.serverMetadata().authorization_endpoint!;
      const page = await choosePassword(
        browser,
        await browser.follow(await browser.post(endpoint, Object.fromEntries(pending.url.searchParams))),
      );
      expect(page.text).toContain('name="password"');
      const tokens = await finishLogin(rp, pending, await submitPassword(browser, page, ...ALICE));
      expect(tokens.claims()!.sub).toBe("E10001");
    });

    it("ignores parameters it does not know", async () => {
      const tokens = await signIn(await webApp(), new RawBrowser(), { foo: "bar", x_vendor_flag: "1" });
      expect(tokens.claims()!.sub).toBe("E10001");
    });

    it("accepts acr_values and still signs the user in", async () => {
      const tokens = await signIn(await webApp(), new RawBrowser(), { acr_values: "1fa urn:example:loa:1" });
      const claims = tokens.claims()!;
      expect(claims.sub).toBe("E10001");
      expect(claims.acr).toBe("1fa");
    });
  });
});
