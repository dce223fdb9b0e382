import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vendorSignature } from "../../src/login-policy/vendor-signature.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * prompt=none never shows a page (OIDC Core 3.1.2.1, 3.1.2.6): every interaction the provider could
 * open — the channel chooser, a login (first-use enrollment included), a step-up, another user's login,
 * the upstream eID provider — is answered instead with an error at the client's redirect URI, with
 * state and iss. Each case first shows that the same request without prompt=none does open a page.
 */
const VENDOR = { client_id: "demo-vendor", redirect_uri: "http://localhost:3004/callback", scope: "openid profile" };
const VENDOR_KEY = readFileSync(new URL("../../config/demo-vendor-signing-key", import.meta.url), "utf8").trim();

let p: TestProvider;
beforeAll(async () => {
  // First-use enrollment on, so that the vendor case has an enrollment page it must not show.
  p = await startTestProvider({
    edits: {
      "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
      "login.yaml": { "login_types.MyVendor.enroll_on_first_use": true },
    },
  });
});
afterAll(() => p.close());

/** alice's browser with an SSO session (one factor, password). alice administers three channels. */
async function signedInBrowser(): Promise<RawBrowser> {
  const browser = new RawBrowser();
  expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer))).get("code")).toBeTruthy();
  return browser;
}

/** The answer is the redirect to the client with `error`, state and iss: no page, no interaction, no code. */
function expectRedirectedError(answer: Answer, error: string, redirectUri = "http://localhost:3001/callback"): URLSearchParams {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  expect(answer.location!.startsWith(`${redirectUri}?`), answer.location).toBe(true);
  const params = responseParams(answer);
  expect(params.get("error")).toBe(error);
  expect(params.get("code")).toBeNull();
  expect(params.get("state")).toBe("st-1");
  expect(params.get("iss")).toBe(p.issuer);
  return params;
}

/** Without prompt=none the request leads to a page of ours (the chooser or a login), not to the client. */
function expectPage(answer: Answer): void {
  expect(answer.status).toBe(303);
  expect(answer.location!.startsWith(p.issuer), answer.location).toBe(true);
}

describe("prompt=none never shows a page", () => {
  it.each(["req_chnl", "chnl_info", "req_chnl chnl_info"])(
    "acr_values %s over an SSO session of a user with several channels: interaction_required, not the chooser",
    async (acr) => {
      const browser = await signedInBrowser();
      expectPage(await browser.get(authorizeUrl(p.issuer, { acr_values: acr })));
      const params = expectRedirectedError(
        await browser.get(authorizeUrl(p.issuer, { acr_values: acr, prompt: "none" })),
        "interaction_required",
      );
      expect(params.get("error_description")).toBe("the user administers several channels and must choose one on a page");
    },
  );

  it("acr_values req_chnl:<id> naming a channel of the session's user needs no page: a code", async () => {
    const browser = await signedInBrowser();
    expect(
      responseParams(await browser.get(authorizeUrl(p.issuer, { acr_values: "req_chnl:north-store", prompt: "none" }))).get("code"),
    ).toBeTruthy();
  });

  it("MyVendor, whose first use would enroll TOTP on a page: login_required (the type keeps no SSO state)", async () => {
    const login_hint = "demo-vendor:prompt-none-account";
    const request = {
      ...VENDOR,
      login_type: "MyVendor",
      login_hint,
      signature: vendorSignature(VENDOR.redirect_uri, login_hint, VENDOR_KEY),
    };
    const browser = await signedInBrowser();
    expectPage(await browser.get(authorizeUrl(p.issuer, request)));
    expectRedirectedError(await browser.get(authorizeUrl(p.issuer, { ...request, prompt: "none" })), "login_required", VENDOR.redirect_uri);
  });

  it("a step-up (acr_values 2fa over a one-factor session): interaction_required", async () => {
    const browser = await signedInBrowser();
    expectPage(await browser.get(authorizeUrl(p.issuer, { acr_values: "2fa" })));
    expectRedirectedError(await browser.get(authorizeUrl(p.issuer, { acr_values: "2fa", prompt: "none" })), "interaction_required");
  });

  it("an id_token_hint for another user than the session's: login_required, not the other user's login page", async () => {
    const browser = await signedInBrowser();
    const hint = p.provider.idTokens.issue({
      sub: "E10002",
      clientId: "demo-web",
      authTime: Math.floor(Date.now() / 1000),
      amr: ["password"],
      acr: "1fa",
      lifetime: 3600,
    });
    expectPage(await browser.get(authorizeUrl(p.issuer, { id_token_hint: hint })));
    expectRedirectedError(await browser.get(authorizeUrl(p.issuer, { id_token_hint: hint, prompt: "none" })), "login_required");
  });

  it("an eID login without an eID session: login_required, never a redirect to the upstream eID provider", async () => {
    const browser = await signedInBrowser();
    expectRedirectedError(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }, "/eID/authorize")), "login_required");
  });

  it("prompt=none consent asks nothing more: a code from the session", async () => {
    const browser = await signedInBrowser();
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none consent" }))).get("code")).toBeNull();
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("code")).toBeTruthy();
  });

  it("no session at all: login_required", async () => {
    expectRedirectedError(await new RawBrowser().get(authorizeUrl(p.issuer, { prompt: "none" })), "login_required");
  });
});
