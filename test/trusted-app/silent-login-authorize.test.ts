import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { authorizeUrl, responseParams } from "../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import type { TestProvider } from "../support/test-provider.ts";
import { enrolledPhone, providerWithPhone } from "./trusted-app-support.ts";

/**
 * The embedded web view of the trusted app on /connect/authorize: a valid silent-login token
 * (parameter acmeauth_token) logs the device's user in without a login page; anything else leads to
 * the usual login page.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

const isLoginPage = (location: string | undefined) => new URL(location!).pathname.startsWith("/interaction/");

describe("silent login on /connect/authorize", () => {
  it("answers the client with a code for the device's user, without a login page; amr qrcode, and an SSO session", async () => {
    const browser = new RawBrowser();
    const answer = await browser.get(authorizeUrl(p.issuer, { acmeauth_token: await phone.silentLoginToken("demo-web") }));
    const tokens = await redeemCode(p, responseParams(answer).get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({
      sub: "E10001",
      amr: ["qrcode"],
      acr: "1fa",
      nonce: "n-1",
    });
    expect(browser.cookies.has("portcullis_session")).toBe(true);
  });

  it("satisfies prompt=none", async () => {
    const answer = await new RawBrowser().get(
      authorizeUrl(p.issuer, { prompt: "none", acmeauth_token: await phone.silentLoginToken("demo-web") }),
    );
    expect(responseParams(answer).get("code")).toBeTruthy();
  });

  it("sends a replayed token, or one made for another client, to the login page, and logs why", async () => {
    const token = await phone.silentLoginToken("demo-web");
    expect(responseParams(await new RawBrowser().get(authorizeUrl(p.issuer, { acmeauth_token: token }))).get("code")).toBeTruthy();
    const replayed = await new RawBrowser().get(authorizeUrl(p.issuer, { acmeauth_token: token }));
    expect(replayed.status).toBe(303);
    expect(isLoginPage(replayed.location)).toBe(true);
    expect(p.logs.some((l) => l.event === "silent_login_refused" && l.reason === "the device JWS was already used")).toBe(true);

    const foreign = await new RawBrowser().get(authorizeUrl(p.issuer, { acmeauth_token: await phone.silentLoginToken("demo-spa") }));
    expect(isLoginPage(foreign.location)).toBe(true);
    // The log names the reason, never the token.
    expect(p.logText()).not.toContain(token);
  });

  it("never logs in a revoked device's user, and prompt=none then answers login_required", async () => {
    const old = await enrolledPhone(p, "E10001", "old phone");
    const token = await old.silentLoginToken("demo-web");
    await old.unenroll();
    expect(responseParams(await new RawBrowser().get(authorizeUrl(p.issuer, { prompt: "none", acmeauth_token: token }))).get("error")).toBe(
      "login_required",
    );
  });

  it("does not log in another user than the one id_token_hint names", async () => {
    const bobs = await enrolledPhone(p, "E10002", "Bob's phone");
    const browser = new RawBrowser();
    const first = await browser.get(authorizeUrl(p.issuer, { acmeauth_token: await bobs.silentLoginToken("demo-web") }));
    const tokens = await redeemCode(p, responseParams(first).get("code")!, { code_verifier: undefined });
    const bobsIdToken = tokens.json!.id_token as string;
    const answer = await new RawBrowser().get(
      authorizeUrl(p.issuer, { prompt: "none", id_token_hint: bobsIdToken, acmeauth_token: await phone.silentLoginToken("demo-web") }),
    );
    expect(responseParams(answer).get("error")).toBe("login_required");
  });
});
