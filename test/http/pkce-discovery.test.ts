/**
 * `code_challenge_methods_supported` says what the deployment accepts (RFC 8414 §2): S256 always,
 * `plain` only while some client opts in with `allow_plain_pkce` — and what is advertised works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { redeemCode, VERIFIER } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { DISCOVERY } from "./helpers.ts";
import { s256Challenge } from "../../src/oauth/pkce.ts";

const advertised = async (p: TestProvider) =>
  ((await (await fetch(p.url + DISCOVERY)).json()) as Record<string, unknown>).code_challenge_methods_supported;

/** Logs alice in to demo-web with this PKCE challenge and redeems the code with VERIFIER; the token endpoint's status. */
async function codeFlowStatus(p: TestProvider, challenge: Record<string, string>): Promise<number> {
  const params = responseParams(await loginWithPassword(new RawBrowser(), authorizeUrl(p.issuer, challenge)));
  expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
  return (await redeemCode(p, params.get("code")!)).status;
}

describe("PKCE methods in discovery, with no client allowing plain (the demo configuration)", () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider();
  });
  afterAll(() => p?.close());

  it("advertises S256 alone, and S256 works", async () => {
    expect(await advertised(p)).toEqual(["S256"]);
    expect(await codeFlowStatus(p, { code_challenge: s256Challenge(VERIFIER), code_challenge_method: "S256" })).toBe(200);
  });

  it("refuses plain at authorize, as it does not advertise it", async () => {
    const answer = await new RawBrowser().get(authorizeUrl(p.issuer, { code_challenge: VERIFIER, code_challenge_method: "plain" }));
    expect(responseParams(answer).get("error")).toBe("invalid_request");
  });
});

describe("PKCE methods in discovery, with one client allowing plain", () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider({ edits: { "clients.yaml": { "clients.0.allow_plain_pkce": true } } });
  });
  afterAll(() => p?.close());

  it("advertises S256 and plain, and plain works for that client from authorize to token", async () => {
    expect(await advertised(p)).toEqual(["S256", "plain"]);
    expect(await codeFlowStatus(p, { code_challenge: VERIFIER, code_challenge_method: "plain" })).toBe(200);
  });
});
