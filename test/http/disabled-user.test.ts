import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { codeTokens, mintCode, redeemCode, refresh } from "../support/code-grant.ts";
import { introspect } from "./helpers.ts";

/**
 * A user removed or disabled after logging in (an operator edits users.yaml and the provider restarts
 * on a shared store, or a directory change) loses everything at once: the SSO session, codes not yet
 * redeemed, refresh tokens and their access tokens.
 */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

const alice = async () => (await p.provider.policies.current().users.findBySub("E10001"))!;
const setDisabled = async (disabled: boolean) => Object.assign(await alice(), { disabled });
afterEach(() => setDisabled(false));

describe("a user disabled after logging in", () => {
  it("loses the SSO session: prompt=none is login_required", async () => {
    const browser = new RawBrowser();
    expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer))).get("code")).toBeTruthy();
    await setDisabled(true);
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("error")).toBe("login_required");
    // Ended for good, not only while disabled.
    await setDisabled(false);
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("error")).toBe("login_required");
  });

  it("cannot redeem a code issued before", async () => {
    const code = await mintCode(p, { sub: "E10001" });
    await setDisabled(true);
    const res = await redeemCode(p, code);
    expect(res.status).toBe(400);
    expect(res.json?.error).toBe("invalid_grant");
  });

  it("cannot refresh, and the refresh family and its access tokens are revoked", async () => {
    const tokens = await codeTokens(p, { sub: "E10001", scopes: ["openid", "offline_access", "acme"] });
    expect((await introspect(p, tokens.access_token)).json?.active).toBe(true);
    await setDisabled(true);
    expect((await introspect(p, tokens.access_token)).json?.active).toBe(false);
    const refused = await refresh(p, tokens.refresh_token!);
    expect(refused.json?.error).toBe("invalid_grant");
    await setDisabled(false);
    expect((await refresh(p, tokens.refresh_token!)).json?.error).toBe("invalid_grant");
    expect((await introspect(p, tokens.access_token)).json?.active).toBe(false);
  });
});
