/**
 * Refresh tokens when the SSO session they came from ends (`refresh_token_ends_with_session`, default
 * true): end session, prompt=force_login. A client with the setting is refused at its next refresh (and
 * the family is revoked, access tokens included); a client without it keeps offline access.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { redeemCode, refresh, WEB, WEB_REDIRECT } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { appendTo, clientEntry, expectOAuthError, introspect } from "./helpers.ts";

// demo-web keeps the default (true); this one opts out: real offline access.
const OFFLINE = { id: "web-offline", secret: "web-offline-secret" } as const;
const SCOPE = "openid profile offline_access";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "clients.yaml": appendTo("clients", [
        clientEntry(OFFLINE.id, OFFLINE.secret, ["authorization_code", "refresh_token"], ["openid", "profile", "offline_access"], {
          redirect_uris: [WEB_REDIRECT],
          offline_access: true,
          refresh_token_ends_with_session: false,
        }),
      ]),
    },
  });
});
afterAll(() => p?.close());

interface Tokens {
  access_token: string;
  id_token: string;
  refresh_token: string;
}

/** A browser that logged in and the tokens `client` got for it through the code flow with offline_access. */
async function signedIn(
  client: { id: string; secret: string },
  browser = new RawBrowser(),
): Promise<{ browser: RawBrowser; tokens: Tokens }> {
  const url = authorizeUrl(p.issuer, { client_id: client.id, scope: SCOPE });
  const answer = browser.cookies.size === 0 ? await loginWithPassword(browser, url) : await browser.get(url);
  const res = await redeemCode(p, responseParams(answer).get("code")!, { code_verifier: undefined }, client);
  expect(res.status, res.text).toBe(200);
  return { browser, tokens: res.json as unknown as Tokens };
}

/** RP-initiated logout with the client's ID token as the hint: the session ends at once. */
async function endSession(browser: RawBrowser, idToken: string): Promise<void> {
  const answer = await browser.get(`${p.url}/connect/endsession?${new URLSearchParams({ id_token_hint: idToken })}`);
  expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(400);
  expect(answer.headers.getSetCookie().some((c) => /^portcullis_session=;/.test(c))).toBe(true);
}

const isActive = async (accessToken: string) => (await introspect(p, accessToken)).json!.active === true;

describe("refresh_token_ends_with_session: true (the default)", () => {
  it("answers the refresh grant with invalid_grant after end session, and revokes what the family issued", async () => {
    const { browser, tokens } = await signedIn(WEB);
    const refreshed = await refresh(p, tokens.refresh_token);
    expect(refreshed.status, refreshed.text).toBe(200);
    const next = refreshed.json as unknown as Tokens;
    await endSession(browser, next.id_token);
    expectOAuthError(await refresh(p, next.refresh_token), 400, "invalid_grant");
    expect(await isActive(next.access_token)).toBe(false);
    expect(await isActive(tokens.access_token)).toBe(false);
  });

  it("answers the refresh grant with invalid_grant after prompt=force_login ends the session", async () => {
    const { browser, tokens } = await signedIn(WEB);
    const forced = await browser.get(authorizeUrl(p.issuer, { prompt: "force_login" }));
    expect(forced.location).toMatch(/\/interaction\//);
    expectOAuthError(await refresh(p, tokens.refresh_token), 400, "invalid_grant");
  });

  it("leaves the refresh tokens of the user's other sessions alone", async () => {
    const ending = await signedIn(WEB);
    const other = await signedIn(WEB);
    await endSession(ending.browser, ending.tokens.id_token);
    const res = await refresh(p, other.tokens.refresh_token);
    expect(res.status, res.text).toBe(200);
  });
});

describe("refresh_token_ends_with_session: false", () => {
  it("keeps answering the refresh grant with 200 after end session: offline access outlives the session", async () => {
    const { browser, tokens } = await signedIn(OFFLINE);
    // The same browser session also served demo-web, whose refresh token does end with it.
    const web = await signedIn(WEB, browser);
    await endSession(browser, tokens.id_token);
    const res = await refresh(p, tokens.refresh_token, {}, OFFLINE);
    expect(res.status, res.text).toBe(200);
    expect((res.json as unknown as Tokens).refresh_token).toEqual(expect.any(String));
    expectOAuthError(await refresh(p, web.tokens.refresh_token), 400, "invalid_grant");
  });
});
