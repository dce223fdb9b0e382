import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { responseParams } from "../support/browser-login.ts";
import { redeemCode, WEB, WEB_REDIRECT } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { basic, postForm, type TestProvider } from "../support/test-provider.ts";
import { providerWithPhone } from "./trusted-app-support.ts";

/**
 * The trusted app's embedded web view with a pushed authorization request (RFC 9126): the silent-login
 * token is the browser's own credential, like the session cookie, so the app adds it to the authorize
 * request that carries the request_uri, and it logs the device's user in. It asks nothing of the login,
 * which stays the pushed one; and a token the client pushed is not the browser's, so it is not used.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

async function push(extra: Record<string, string> = {}): Promise<string> {
  const form = { client_id: WEB.id, redirect_uri: WEB_REDIRECT, response_type: "code", scope: "openid", state: "pushed", ...extra };
  const answer = await postForm(`${p.url}/connect/par`, form, { authorization: basic(WEB.id, WEB.secret) });
  expect(answer.status, answer.text).toBe(201);
  return answer.json!.request_uri as string;
}

function authorize(requestUri: string, extra: Record<string, string> = {}): string {
  return `${p.issuer}/connect/authorize?${new URLSearchParams({ client_id: WEB.id, request_uri: requestUri, ...extra })}`;
}

describe("silent login with a pushed request", () => {
  it("logs the device's user in from the token the app adds to the authorize request, with the pushed state", async () => {
    const answer = await new RawBrowser().get(authorize(await push(), { acmeauth_token: await phone.silentLoginToken("demo-web") }));
    const response = responseParams(answer);
    expect(response.get("state")).toBe("pushed");
    const tokens = await redeemCode(p, response.get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
  });

  it("does not use a token the client pushed: the browser gets the login page", async () => {
    const requestUri = await push({ acmeauth_token: await phone.silentLoginToken("demo-web") });
    const answer = await new RawBrowser().get(authorize(requestUri));
    expect(answer.status).toBe(303);
    expect(new URL(answer.location!).pathname).toMatch(/^\/interaction\//);
  });
});
