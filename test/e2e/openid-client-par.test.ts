import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/backends.ts";
import { dpopKey } from "../support/dpop-proof.ts";
import { loginWithPassword, openLoginPage, submitPassword } from "../support/browser-login.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { serviceUrl } from "../support/require-service.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Pushed authorization requests (RFC 9126) as a certified relying-party library makes them:
 * openid-client v6's buildAuthorizationUrlWithPAR pushes the request (authenticating as at the token
 * endpoint) and sends the browser with client_id and request_uri alone; a raw browser logs in; the
 * library redeems the code with its PKCE, state and nonce checks and verifies the ID token's signature.
 * On every store backend, and across two nodes on one Redis: a request_uri is used once, on any node.
 */
const WEB_CALLBACK = "http://localhost:3001/callback";
const SPA_CALLBACK = "http://localhost:3002/callback";

interface PushedLogin {
  url: URL;
  checks: { pkceCodeVerifier: string; expectedState: string; expectedNonce: string };
}

async function discover(issuer: string, clientId: string, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(issuer), clientId, undefined, auth, {
    execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
  });
}

/** Pushes an authorization request with PKCE S256, state and nonce; `params` add to or replace them. */
async function pushLogin(config: oidc.Configuration, params: Record<string, string>, options?: oidc.DPoPOptions): Promise<PushedLogin> {
  const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
  const expectedState = oidc.randomState();
  const expectedNonce = oidc.randomNonce();
  const url = await oidc.buildAuthorizationUrlWithPAR(
    config,
    {
      scope: "openid profile",
      code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: "S256",
      state: expectedState,
      nonce: expectedNonce,
      ...params,
    },
    options,
  );
  return { url, checks: { pkceCodeVerifier, expectedState, expectedNonce } };
}

/** Hands the browser's redirect to the client over to openid-client, which redeems the code. */
function finish(config: oidc.Configuration, pending: PushedLogin, answer: Answer) {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  return oidc.authorizationCodeGrant(config, new URL(answer.location!), pending.checks);
}

/** The answer of the authorize request, on `node` (the same deployment's other node, for instance). */
function authorizeAt(pending: PushedLogin, node: TestProvider, extra: Record<string, string> = {}): string {
  const url = new URL(pending.url.pathname + pending.url.search, node.url);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url.href;
}

function expectInvalidRequestUri(answer: Answer): void {
  expect(answer.status).toBe(400);
  expect(answer.location).toBeUndefined();
  expect(answer.text).toContain("invalid_request_uri");
}

describe.each(availableBackends())("pushed authorization requests driven by openid-client on the $name store", ({ url: storeUrl }) => {
  let op: TestProvider;
  beforeAll(async () => {
    op = await startTestProvider({ storeUrl });
  });
  afterAll(() => op?.close());

  it("finds the endpoint in discovery", async () => {
    const meta = (await discover(op.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"))).serverMetadata();
    expect(meta.pushed_authorization_request_endpoint).toBe(`${op.issuer}/connect/par`);
    expect(meta.require_pushed_authorization_requests).toBe(false);
  });

  it.each([
    ["client_secret_basic", oidc.ClientSecretBasic("demo-web-secret")],
    ["client_secret_post", oidc.ClientSecretPost("demo-web-secret")],
  ])("pushes demo-web's request (%s), logs alice in with the request_uri alone, and redeems the code", async (_, auth) => {
    const config = await discover(op.issuer, "demo-web", auth);
    const pending = await pushLogin(config, { redirect_uri: WEB_CALLBACK });
    expect([...pending.url.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);
    const tokens = await finish(config, pending, await loginWithPassword(new RawBrowser(), pending.url.href));
    expect(tokens.claims()).toMatchObject({ iss: op.issuer, sub: "E10001", aud: "demo-web", nonce: pending.checks.expectedNonce });
    // The request_uri is spent: the same link again is refused, and shows no login.
    expectInvalidRequestUri(await new RawBrowser().get(pending.url.href));
  });

  it("pushes the public demo-spa's request with client_id alone and PKCE", async () => {
    const config = await discover(op.issuer, "demo-spa", oidc.None());
    const pending = await pushLogin(config, { redirect_uri: SPA_CALLBACK });
    const tokens = await finish(config, pending, await loginWithPassword(new RawBrowser(), pending.url.href, "bob", "bob-password"));
    expect(tokens.claims()).toMatchObject({ sub: "E10002", aud: "demo-spa" });
  });

  it("runs the pushed request, not what the browser adds: no step-up to 2fa, no other login type, no prompt=none", async () => {
    const config = await discover(op.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"));
    const pending = await pushLogin(config, { redirect_uri: WEB_CALLBACK });
    const tampered = authorizeAt(pending, op, { acr_values: "2fa", login_type: "MfaTotp", login_hint: "alice", prompt: "none", fa: "sms" });
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, tampered);
    const tokens = await finish(config, pending, await submitPassword(browser, page, "alice", "alice-password"));
    expect(tokens.claims()).toMatchObject({ sub: "E10001", amr: ["password"], acr: "1fa" });
  });

  it("starts exactly one login when the same request_uri arrives several times at once", async () => {
    const config = await discover(op.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"));
    const pending = await pushLogin(config, { redirect_uri: WEB_CALLBACK });
    const answers = await Promise.all([1, 2, 3, 4].map(() => new RawBrowser().get(pending.url.href)));
    expect(answers.filter((answer) => answer.status === 303 && answer.location?.includes("/interaction/"))).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status !== 303)) expectInvalidRequestUri(refused);
  });

  it("binds the code to the key of a DPoP proof sent with the push (RFC 9449 §10.1): no other key, and no proof, redeems it", async () => {
    const config = await discover(op.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"));
    const key = await dpopKey();
    const pending = await pushLogin(config, { redirect_uri: WEB_CALLBACK }, { DPoP: oidc.getDPoPHandle(config, key) });
    const callback = new URL((await loginWithPassword(new RawBrowser(), pending.url.href)).location!);
    const thief = oidc.getDPoPHandle(config, await dpopKey());
    await expect(oidc.authorizationCodeGrant(config, callback, pending.checks, undefined, { DPoP: thief })).rejects.toMatchObject({
      error: "invalid_grant",
    });
    await expect(oidc.authorizationCodeGrant(config, callback, pending.checks)).rejects.toMatchObject({ error: "invalid_dpop_proof" });
    const tokens = await oidc.authorizationCodeGrant(config, callback, pending.checks, undefined, {
      DPoP: oidc.getDPoPHandle(config, key),
    });
    expect(tokens.token_type).toBe("dpop");
  });

  it("refuses a push whose dpop_jkt names another key than its DPoP proof's", async () => {
    const config = await discover(op.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"));
    const other = await dpopKey();
    const refusal = await pushLogin(
      config,
      { redirect_uri: WEB_CALLBACK, dpop_jkt: other.jkt },
      { DPoP: oidc.getDPoPHandle(config, await dpopKey()) },
    ).catch((err: unknown) => err);
    expect(refusal).toMatchObject({ status: 400, error: "invalid_request" });
  });

  it("gets the push refused with 401 invalid_client for a wrong secret", async () => {
    const config = await discover(op.issuer, "demo-web", oidc.ClientSecretPost("not-the-secret"));
    const refusal = await pushLogin(config, { redirect_uri: WEB_CALLBACK }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(oidc.ResponseBodyError);
    expect(refusal).toMatchObject({ status: 401, error: "invalid_client" });
  });

  it("gets authorize's refusals of a pushed request as JSON errors, not a redirect", async () => {
    const config = await discover(op.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"));
    const refusal = await pushLogin(config, { redirect_uri: WEB_CALLBACK, scope: "openid not-allowed" }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(oidc.ResponseBodyError);
    expect(refusal).toMatchObject({ status: 400, error: "invalid_scope" });
  });
});

const redisUrl = serviceUrl("redis");

describe.skipIf(!redisUrl)("a pushed request on two provider nodes sharing one Redis store", () => {
  let a: TestProvider;
  let b: TestProvider;
  let config: oidc.Configuration;

  beforeAll(async () => {
    const storeUrl = `${redisUrl}?prefix=par-two-nodes-${Date.now()}`;
    a = await startTestProvider({ storeUrl });
    b = await startTestProvider({ storeUrl, issuer: a.issuer });
    config = await discover(a.issuer, "demo-web", oidc.ClientSecretBasic("demo-web-secret"));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("is pushed to one node and logged in on the other, and is then spent on both", async () => {
    const pending = await pushLogin(config, { redirect_uri: WEB_CALLBACK });
    const tokens = await finish(config, pending, await loginWithPassword(new RawBrowser(), authorizeAt(pending, b)));
    expect(tokens.claims()).toMatchObject({ sub: "E10001", aud: "demo-web" });
    expectInvalidRequestUri(await new RawBrowser().get(authorizeAt(pending, a)));
    expectInvalidRequestUri(await new RawBrowser().get(authorizeAt(pending, b)));
  });

  it("starts exactly one login when both nodes get the same request_uri at once", async () => {
    for (let round = 0; round < 5; round++) {
      const pending = await pushLogin(config, { redirect_uri: WEB_CALLBACK });
      const answers = await Promise.all([a, b, a, b].map((node) => new RawBrowser().get(authorizeAt(pending, node))));
      expect(answers.filter((answer) => answer.status === 303 && answer.location?.includes("/interaction/"))).toHaveLength(1);
      for (const refused of answers.filter((answer) => answer.status !== 303)) expectInvalidRequestUri(refused);
    }
  });
});
