import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams, submitPassword } from "../support/browser-login.ts";
import { redeemCode, refresh, VERIFIER, verifyIdToken } from "../support/code-grant.ts";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import { submitStep } from "../support/method-pages.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { appendTo, clientEntry } from "./helpers.ts";

/**
 * The OIDC `claims` parameter (OIDC Core §5.5), per-client birthdate formats, and unmet authentication
 * requirements (OpenID Connect Core Unmet Authentication Requirements 1.0), over real HTTP: a raw browser
 * logs in through the login pages, the code is redeemed at the token endpoint, userinfo is asked with the
 * access token. TOTP is enrolled through the plugin's operator enrollment; codes come from otplib.
 */
const OIDC_DATES = { id: "oidc-dates", secret: "oidc-dates-secret", redirect: "http://localhost:3011/callback" };
const STRICT = { id: "strict-web", secret: "strict-web-secret", redirect: "http://localhost:3012/callback" };
const WEB = { id: "demo-web", secret: "demo-web-secret", redirect: "http://localhost:3001/callback" };
const SPA = { id: "demo-spa", redirect: "http://localhost:3002/callback" };

let p: TestProvider;
const secrets = new Map<string, string>();

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
      "clients.yaml": appendTo("clients", [
        // A certification test client: OIDC Core §5.1's YYYY-MM-DD.
        clientEntry(OIDC_DATES.id, OIDC_DATES.secret, ["authorization_code", "refresh_token"], ["openid", "profile", "offline_access"], {
          redirect_uris: [OIDC_DATES.redirect],
          offline_access: true,
          birthdate_format: "oidc",
        }),
        // Every login for it must reach 2fa.
        clientEntry(STRICT.id, STRICT.secret, ["authorization_code"], ["openid", "profile"], {
          redirect_uris: [STRICT.redirect],
          minimum_acr: "2fa",
        }),
      ]),
    },
  });
  const totp = p.provider.methods.get("totp")!;
  for (const [username, sub] of [
    ["alice", "E10001"],
    ["bob", "E10002"],
  ]) {
    const uri = await totp.plugin.enrollByOperator!(totp.context, sub!, {});
    secrets.set(username!, new URL(uri).searchParams.get("secret")!);
  }
}, 120_000);
afterAll(() => p?.close());

/** demo-web's authorize URL (or another client's), with `claims` as JSON when it is an object. */
function url(extra: Record<string, string | undefined>, client: { id: string; redirect: string } = WEB): string {
  return authorizeUrl(p.issuer, { client_id: client.id, redirect_uri: client.redirect, ...extra });
}

const claimsParam = (claims: unknown) => JSON.stringify(claims);

/** Logs alice in by password; the code's token response (must be a 200). */
async function passwordLogin(
  extra: Record<string, string | undefined>,
  client: { id: string; secret?: string; redirect: string } = WEB,
  browser = new RawBrowser(),
) {
  const params = responseParams(await loginWithPassword(browser, url(extra, client)));
  expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
  const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined, redirect_uri: client.redirect }, client);
  expect(tokens.status, tokens.text).toBe(200);
  return tokens.json as { access_token: string; id_token: string; refresh_token?: string };
}

async function userinfo(accessToken: string) {
  const res = await send(`${p.url}/connect/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(res.status, res.text).toBe(200);
  return res.json!;
}

/** The error an authorize request is answered with at the redirect_uri (with state and iss), without any login. */
async function redirectedError(extra: Record<string, string | undefined>, client: { id: string; redirect: string } = WEB) {
  const answer = await new RawBrowser().get(url(extra, client));
  const params = responseParams(answer);
  expect(answer.location!.startsWith(client.redirect)).toBe(true);
  expect(params.get("state")).toBe("st-1");
  expect(params.get("iss")).toBe(p.issuer);
  expect(params.get("code")).toBeNull();
  return { error: params.get("error"), description: params.get("error_description") };
}

const usedSteps = new Map<string, number>();
/** A TOTP code for `username` in a time step not used yet (the method takes each step once per user). */
async function freshCode(username: string): Promise<string> {
  for (;;) {
    const step = Math.floor(Date.now() / 30_000);
    if (usedSteps.get(username) !== step) {
      usedSteps.set(username, step);
      return generate({ secret: secrets.get(username)!, epoch: Math.floor(Date.now() / 1000) });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A two-factor login through the pages (the password, then TOTP); the answer to the client. */
async function twoFactorLogin(browser: RawBrowser, authorize: string, username: string, password: string): Promise<Answer> {
  const second = await loginWithPassword(browser, authorize, username, password);
  expect(second.status, second.text.slice(0, 300)).toBe(200);
  // The second verification: TOTP, chosen when the page opens on another method.
  let page = second;
  if (!page.text.includes('value="SUBMIT_CODE"') || !page.text.includes("totp")) {
    page = await submitStep(browser, page, { event: "CHOOSE_METHOD", method: "totp" });
  }
  expect(page.text, page.text.slice(0, 400)).toContain('value="SUBMIT_CODE"');
  return submitStep(browser, page, { event: "SUBMIT_CODE", code: await freshCode(username) });
}

describe("the claims parameter's shape", () => {
  it.each([
    ["not JSON", "{userinfo:"],
    ["a JSON array", "[]"],
    ["a member that is no object", claimsParam({ userinfo: ["email"] })],
    ["a claim request that is neither null nor an object", claimsParam({ id_token: { email: true } })],
    ["essential that is not a boolean", claimsParam({ id_token: { email: { essential: "yes" } } })],
    ["values that are not an array", claimsParam({ id_token: { acr: { values: "2fa" } } })],
    ["an acr value that is not a string", claimsParam({ id_token: { acr: { value: 2 } } })],
    ["a parameter over 4096 characters", claimsParam({ userinfo: { [`x${"y".repeat(4100)}`]: null } })],
  ])("refuses %s with invalid_request at the redirect_uri", async (_, claims) => {
    expect(await redirectedError({ claims })).toMatchObject({ error: "invalid_request" });
  });

  it("says in discovery that the claims parameter is supported, and lists the standard claims", async () => {
    const metadata = (await send(`${p.url}/.well-known/openid-configuration`)).json!;
    expect(metadata.claims_parameter_supported).toBe(true);
    expect(metadata.claims_supported).toEqual(
      expect.arrayContaining(["given_name", "family_name", "preferred_username", "updated_at", "email_verified", "birthdate"]),
    );
  });
});

describe("claims released by the claims parameter", () => {
  it("adds the requested claims to the ID token and to userinfo beyond the granted scope openid, within the client's allowed scopes", async () => {
    const claims = claimsParam({
      id_token: { given_name: { essential: true }, birthdate: null, email_verified: null },
      userinfo: { email: null, family_name: { value: "ignored: the directory's value is released" } },
    });
    const tokens = await passwordLogin({ scope: "openid", claims });
    const idToken = await verifyIdToken(p, tokens.id_token);
    expect(idToken).toMatchObject({ sub: "E10001", given_name: "Alice", birthdate: "1990/04/12", email_verified: true });
    expect(idToken).not.toHaveProperty("email");
    expect(await userinfo(tokens.access_token)).toEqual({ sub: "E10001", email: "alice@example.com", family_name: "Chen" });
  });

  it("never releases a claim that no scope the client is allowed releases (demo-spa has no email scope)", async () => {
    const claims = claimsParam({ id_token: { email: { essential: true }, name: null }, userinfo: { email: null, email_verified: null } });
    const pkce = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: "S256" };
    const params = responseParams(await loginWithPassword(new RawBrowser(), url({ scope: "openid", claims, ...pkce }, SPA)));
    expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
    const tokens = await redeemCode(p, params.get("code")!, { redirect_uri: SPA.redirect }, { id: SPA.id });
    expect(tokens.status, tokens.text).toBe(200);
    const idToken = await verifyIdToken(p, tokens.json!.id_token as string, SPA.id);
    expect(idToken).not.toHaveProperty("email");
    // name is released by profile, which demo-spa may ask for: the claims request adds it.
    expect(idToken.name).toBe("Alice Chen");
    expect(await userinfo(tokens.json!.access_token as string)).toEqual({ sub: "E10001" });
  });

  it("ignores protocol claims asked for by name: acr, auth_time and sub stay the issuer's", async () => {
    const claims = claimsParam({ id_token: { sub: { value: "E10002" }, auth_time: { essential: true } } });
    const tokens = await passwordLogin({ scope: "openid", claims });
    const idToken = await verifyIdToken(p, tokens.id_token);
    expect(idToken.sub).toBe("E10001");
    expect(idToken.auth_time).toBeTypeOf("number");
  });

  it("keeps the requested claims for refreshed ID tokens and for userinfo on refreshed access tokens", async () => {
    const claims = claimsParam({ id_token: { given_name: null }, userinfo: { birthdate: null } });
    const tokens = await passwordLogin({ scope: "openid offline_access", claims }, OIDC_DATES);
    expect(tokens.refresh_token).toBeTypeOf("string");
    const refreshed = await refresh(p, tokens.refresh_token!, {}, OIDC_DATES);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(await verifyIdToken(p, refreshed.json!.id_token as string, OIDC_DATES.id)).toMatchObject({ given_name: "Alice" });
    expect(await userinfo(refreshed.json!.access_token as string)).toEqual({ sub: "E10001", birthdate: "1990-04-12" });
  });
});

describe("birthdate_format", () => {
  it("writes birthdate yyyy/MM/dd for a client by default, in userinfo and in the ID token", async () => {
    const tokens = await passwordLogin({ scope: "openid profile", claims: claimsParam({ id_token: { birthdate: null } }) });
    expect((await verifyIdToken(p, tokens.id_token)).birthdate).toBe("1990/04/12");
    expect(await userinfo(tokens.access_token)).toMatchObject({ birthdate: "1990/04/12", hiredate: "2015-08-03" });
  });

  it("writes birthdate YYYY-MM-DD for a client with birthdate_format oidc, hiredate unchanged", async () => {
    const tokens = await passwordLogin({ scope: "openid profile", claims: claimsParam({ id_token: { birthdate: null } }) }, OIDC_DATES);
    expect((await verifyIdToken(p, tokens.id_token, OIDC_DATES.id)).birthdate).toBe("1990-04-12");
    expect(await userinfo(tokens.access_token)).toMatchObject({ birthdate: "1990-04-12", hiredate: "2015-08-03", updated_at: 1767225600 });
  });
});

describe("an essential acr in the claims parameter", () => {
  it("is unmet_authentication_requirements at the redirect_uri when no login here reports any of its values", async () => {
    const claims = claimsParam({ id_token: { acr: { essential: true, values: ["urn:example:gold", "loa4"] } } });
    expect(await redirectedError({ claims })).toMatchObject({ error: "unmet_authentication_requirements" });
  });

  it("is unmet_authentication_requirements when the request's own login_type cannot reach it, never a weaker login", async () => {
    const claims = claimsParam({ id_token: { acr: { essential: true, value: "2fa" } } });
    expect(await redirectedError({ claims, login_type: "MfaTotp", login_hint: "alice" })).toMatchObject({
      error: "unmet_authentication_requirements",
    });
  });

  it("is met by a two-factor login it asks for when the request names no login type: the ID token says 2fa", async () => {
    const claims = claimsParam({ id_token: { acr: { essential: true, values: ["2fa"] } } });
    const answer = await twoFactorLogin(new RawBrowser(), url({ claims }), "alice", "alice-password");
    const params = responseParams(answer);
    expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ acr: "2fa", amr: ["password", "totp", "mfa"] });
  });

  it("is met by a password login when it accepts 1fa", async () => {
    const tokens = await passwordLogin({ claims: claimsParam({ id_token: { acr: { essential: true, value: "1fa" } } }) });
    expect((await verifyIdToken(p, tokens.id_token)).acr).toBe("1fa");
  });

  it("without essential is a preference like acr_values: 2fa selects the two-factor login, nothing is refused", async () => {
    const browser = new RawBrowser();
    const page = await loginWithPassword(browser, url({ claims: claimsParam({ id_token: { acr: { values: ["2fa"] } } }) }));
    // After the password, a second verification is asked for instead of a code.
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    expect(page.text).toContain('value="SUBMIT_CODE"');
    // An unknown value that is not essential is ignored: the default login.
    const tokens = await passwordLogin({ claims: claimsParam({ id_token: { acr: { values: ["urn:example:gold"] } } }) });
    expect((await verifyIdToken(p, tokens.id_token)).acr).toBe("1fa");
  });
});

describe("a client's minimum_acr", () => {
  it("gets the client a two-factor login for a request that names no login type", async () => {
    const answer = await twoFactorLogin(new RawBrowser(), url({}, STRICT), "bob", "bob-password");
    const params = responseParams(answer);
    expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined, redirect_uri: STRICT.redirect }, STRICT);
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string, STRICT.id)).toMatchObject({ sub: "E10002", acr: "2fa" });
  });

  it("answers unmet_authentication_requirements at the redirect_uri when the request asks for a weaker login", async () => {
    const unmet = await redirectedError({ login_type: "MfaTotp", login_hint: "alice" }, STRICT);
    expect(unmet).toMatchObject({ error: "unmet_authentication_requirements" });
    expect(unmet.description).toContain("minimum_acr");
    // must_bfido decides the verification itself (one method): it cannot reach 2fa either.
    expect(await redirectedError({ acr_values: "must_bfido" }, STRICT)).toMatchObject({ error: "unmet_authentication_requirements" });
  });

  it("does not let a one-factor SSO session serve the client: prompt=none is interaction_required, and no code is issued", async () => {
    const browser = new RawBrowser();
    await passwordLogin({}, WEB, browser);
    const params = responseParams(await browser.get(url({ prompt: "none" }, STRICT)));
    expect(params.get("code")).toBeNull();
    expect(params.get("error")).toBe("interaction_required");
    // Without prompt=none the session is stepped up: a page asks for the second verification, no code yet.
    const page = await browser.follow(await browser.get(url({}, STRICT)));
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    expect(page.text).toContain('value="SUBMIT_CODE"');
  });
});

describe("the claims parameter in a pushed authorization request (RFC 9126)", () => {
  const push = (form: Record<string, string>) => postForm(`${p.url}/connect/par`, form, { authorization: basic(WEB.id, WEB.secret) });
  const pushedRequest = (claims: string) => ({
    client_id: WEB.id,
    redirect_uri: WEB.redirect,
    response_type: "code",
    scope: "openid",
    state: "st-1",
    claims,
  });

  it("refuses a malformed claims parameter at the push", async () => {
    const answer = await push(pushedRequest(claimsParam({ id_token: ["given_name"] })));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_request" });
  });

  it("releases the pushed request's claims as a direct request's", async () => {
    const answer = await push(pushedRequest(claimsParam({ id_token: { given_name: null }, userinfo: { email: null } })));
    expect(answer.status, answer.text).toBe(201);
    const authorize = new URL("/connect/authorize", p.issuer);
    authorize.searchParams.set("client_id", WEB.id);
    authorize.searchParams.set("request_uri", answer.json!.request_uri as string);
    const params = responseParams(await loginWithPassword(new RawBrowser(), authorize.href));
    expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ given_name: "Alice" });
    expect(await userinfo(tokens.json!.access_token as string)).toEqual({ sub: "E10001", email: "alice@example.com" });
  });

  it("answers an essential acr no login reaches with unmet_authentication_requirements at the push itself", async () => {
    const answer = await push(pushedRequest(claimsParam({ id_token: { acr: { essential: true, value: "urn:example:loa4" } } })));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ error: "unmet_authentication_requirements" });
  });
});
