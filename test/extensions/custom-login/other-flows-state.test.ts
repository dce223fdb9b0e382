import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { decodeJwt } from "jose";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { RawBrowser } from "../../support/raw-browser.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { loadLoginJs, PC_REDIRECT, scanState, type ScriptSession } from "../../support/custom-login.ts";

/**
 * The custom QR-code login is the only flow that prefixes state (docs/custom-login.md §8): every other
 * authorize response returns it byte for byte, however much it looks like a custom login's — bars,
 * a leading bar, 43 characters and a bar, even the id of a live scan session of another client or
 * redirect URI — and its tokens carry nothing of the custom login. The multi-service link of §10 is
 * such an ordinary request.
 */
let p: TestProvider;
let browser: RawBrowser;
let webSession: ScriptSession;
let channelSession: ScriptSession;

beforeAll(async () => {
  p = await startTestProvider({ edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000 } } });
  browser = new RawBrowser();
  expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.url))).get("code")).toBeTruthy();
  webSession = await loadLoginJs(p);
  channelSession = await loadLoginJs(p, {
    clientId: "demo-channel",
    MobileRedirectUrl: "http://localhost:4100/channel/select",
    PCClientId: "demo-web",
    PCScope: "openid channel.login.scan",
  });
});
afterAll(() => p.close());

/** A single-sign-on authorize request in the signed-in browser: the response parameters at the client. */
async function ssoAuthorize(params: Record<string, string | undefined>): Promise<URLSearchParams> {
  const answer = await browser.get(authorizeUrl(p.url, params));
  return responseParams(answer);
}

const BASE64URL = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"];
const tail = fc.string({ unit: "grapheme", maxLength: 20 });
const stateArb = fc.oneof(
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }),
  fc.string({ unit: fc.constantFrom("|", "a", " ", "%", "&", "=", "#", "+", "ü", "😀"), minLength: 1, maxLength: 30 }),
  tail.map((t) => `|${t}`),
  fc.tuple(fc.string({ unit: fc.constantFrom(...BASE64URL), minLength: 43, maxLength: 43 }), tail).map(([id, t]) => `${id}|${t}`),
  tail.map((t) => `${webSession.sessionId}|${t}`),
  tail.map((t) => `${channelSession.sessionId}|${t}`),
);

describe("the state of every other flow", () => {
  it("comes back byte for byte from /connect/authorize, and the access token has no custom_scan_sid", async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, async (state) => {
        const params = await ssoAuthorize({ state, scope: "openid profile acme.ext.custom_scan" });
        expect(params.get("state")).toBe(state);
        const res = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
        expect(res.status, res.text).toBe(200);
        const tokens = res.json as { access_token: string; id_token: string };
        expect(decodeJwt(tokens.access_token).custom_scan_sid).toBeUndefined();
        expect(decodeJwt(tokens.id_token).custom_scan).toBeUndefined();
      }),
      { numRuns: 30 },
    );
    // The live sessions whose ids the states borrowed were not scanned by any of it.
    expect(await scanState(webSession)).toBe("waiting");
    expect(await scanState(channelSession)).toBe("waiting");
  });
});

describe("the multi-service extension's PC-side authorize link", () => {
  const cases: Array<[string, Record<string, string>, { id: string; secret: string }]> = [
    [
      "demo-web's PC page",
      { client_id: "demo-web", redirect_uri: PC_REDIRECT, scope: "openid profile acme" },
      { id: "demo-web", secret: "demo-web-secret" },
    ],
    [
      "the fourth party",
      { client_id: "demo-fourth-party", redirect_uri: "http://localhost:3006/callback", scope: "openid profile channel.login.scan" },
      { id: "demo-fourth-party", secret: "demo-fourth-party-secret" },
    ],
  ];
  it.each(cases)("%s: logs in by SSO, returns <custom_data>|<other_state> byte for byte, no custom_scan", async (_name, link, client) => {
    const state = "eyJ0cyI6MX0.sealed|data|other-state";
    const params = await ssoAuthorize({ ...link, response_type: "code", state, nonce: undefined });
    expect(params.get("state")).toBe(state);
    const res = await redeemCode(p, params.get("code")!, { redirect_uri: link.redirect_uri, code_verifier: undefined }, client);
    expect(res.status, res.text).toBe(200);
    const idToken = await verifyIdToken(p, (res.json as { id_token: string }).id_token, client.id);
    expect(idToken.sub).toBe("E10001");
    expect(idToken.custom_scan).toBeUndefined();
    expect(decodeJwt((res.json as { access_token: string }).access_token).custom_scan_sid).toBeUndefined();
  });
});
