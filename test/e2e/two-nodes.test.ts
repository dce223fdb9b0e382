import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, openLoginPage, responseParams } from "../support/browser-login.ts";
import { verifyIdToken } from "../support/code-grant.ts";
import { onNode, startSiblingProcess, type ProviderProcess } from "../support/provider-process.ts";
import { formAction, hiddenField, RawBrowser } from "../support/raw-browser.ts";
import { serviceUrl } from "../support/require-service.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { challengeOf, numberOn, openQrLogin, operatorEnrollUri, press } from "../trusted-app/trusted-app-support.ts";

/**
 * Two provider processes of one deployment on one Redis (same issuer, same key prefix): whatever one
 * node issues, records or revokes, the other sees — keys, revocations and attempt counters alike.
 */
const redisUrl = serviceUrl("redis");

describe.skipIf(!redisUrl)("two provider nodes sharing one Redis store", () => {
  let a: TestProvider;
  let b: TestProvider;
  const service = { authorization: basic("demo-service", "demo-service-secret") };
  const api = { authorization: basic("acme-api", "acme-api-secret") };

  beforeAll(async () => {
    const storeUrl = `${redisUrl}?prefix=two-nodes-${Date.now()}`;
    a = await startTestProvider({ storeUrl });
    b = await startTestProvider({ storeUrl, issuer: a.issuer });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const token = async (node: TestProvider) =>
    (await postForm(`${node.url}/connect/token`, { grant_type: "client_credentials" }, service)).json!.access_token as string;
  const active = async (node: TestProvider, t: string) =>
    (await postForm(`${node.url}/connect/introspect`, { token: t }, api)).json!.active;

  it("publishes the same signing keys from both nodes", async () => {
    const jwks = await Promise.all([a, b].map(async (n) => (await fetch(`${n.url}/.well-known/openid-configuration/jwks`)).json()));
    expect(jwks[0]).toEqual(jwks[1]);
  });

  it("accepts on one node a token issued by the other", async () => {
    expect(await active(b, await token(a))).toBe(true);
    expect(await active(a, await token(b))).toBe(true);
  });

  it("honours on one node a revocation made on the other", async () => {
    const t = await token(a);
    const revoked = await postForm(`${b.url}/connect/revocation`, { token: t }, service);
    expect(revoked.status).toBe(200);
    expect(await active(a, t)).toBe(false);
  });

  it("serves a reference token issued on one node from the other, and ends it on both at the revocation", async () => {
    const portal = { authorization: basic("demo-portal", "demo-portal-secret") };
    const handle = (await postForm(`${a.url}/connect/token`, { grant_type: "client_credentials" }, portal)).json!.access_token as string;
    expect(handle).toMatch(/^[\w-]{43}$/);
    expect(await active(b, handle)).toBe(true);
    expect((await postForm(`${b.url}/connect/revocation`, { token: handle }, portal)).status).toBe(200);
    expect(await active(a, handle)).toBe(false);
    expect(await active(b, handle)).toBe(false);
  });

  it("counts password failures across nodes, so spreading guesses over nodes does not help", async () => {
    const legacy = { authorization: basic("demo-legacy", "demo-legacy-secret") };
    const attempt = (node: TestProvider, password: string) =>
      postForm(`${node.url}/connect/token`, { grant_type: "password", username: "bob", password }, legacy);
    for (let i = 0; i < 5; i++) expect((await attempt(i % 2 === 0 ? a : b, `wrong-${i}`)).status).toBe(400);
    const right = await attempt(b, "bob-password");
    expect(right.status).toBe(400);
    expect(right.json?.error).toBe("invalid_grant");
  });
});

describe.skipIf(!redisUrl)("two provider processes on one Redis: authorize on one, login POST on the other, token on the first", () => {
  let a: TestProvider;
  let b: ProviderProcess;
  const web = { client_id: "demo-web", redirect_uri: "http://localhost:3001/callback" };
  const spa = { client_id: "demo-spa", redirect_uri: "http://localhost:3002/callback", scope: "openid profile" };

  beforeAll(async () => {
    // Node A runs in this test process; node B is `portcullis start` on a copy of A's config (same
    // issuer, same Redis URL and prefix, same encryption key file), as a second machine would run it.
    a = await startTestProvider({ storeUrl: `${redisUrl}?prefix=two-processes-${Date.now()}` });
    b = await startSiblingProcess(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  /** demo-web's openid-client configuration, discovered through the issuer (node A). */
  const webClient = () =>
    oidc.discovery(new URL(a.issuer), "demo-web", undefined, oidc.ClientSecretBasic("demo-web-secret"), {
      execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
    });

  /** Authorize on node A, open the login page there, post the password form to node B; B's answer. */
  async function loginAcrossNodes(browser: RawBrowser, params: Record<string, string>) {
    const page = await openLoginPage(browser, authorizeUrl(a.issuer, params));
    expect(new URL(page.url).origin).toBe(a.url);
    const action = onNode(formAction(page.text, page.url), b);
    expect(new URL(action).pathname).toBe(new URL(page.url).pathname);
    const answer = await browser.post(action, {
      csrf: hiddenField(page.text, "csrf") ?? "",
      event: "SUBMIT_PASSWORD",
      username: "alice",
      password: "alice-password",
    });
    expect(responseParams(answer).get("code"), "node B completes the login started on node A").toBeTruthy();
    return answer;
  }

  /** Redeems the code of a redirect at node B's token endpoint; the sid of its verified ID token (sub must be alice's). */
  async function redeemedSid(location: string, clientId: string, proof: Record<string, string>, redirectUri = web.redirect_uri) {
    const code = new URL(location).searchParams.get("code")!;
    const form = { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: redirectUri, ...proof };
    const res = await postForm(`${b.url}/connect/token`, form);
    expect(res.status, res.text).toBe(200);
    const claims = await verifyIdToken(a, res.json!.id_token as string, clientId);
    expect(claims.sub).toBe("E10001");
    return claims.sid;
  }

  it("runs node B in an OS process of its own that serves the same issuer", async () => {
    expect(b.pid).not.toBe(process.pid);
    expect(b.url).not.toBe(a.url);
    const discovery = (await (await fetch(`${b.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.issuer).toBe(a.issuer);
  });

  it("completes a login that hops from node A to node B, and redeems the code at node A", async () => {
    const config = await webClient();
    const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
    const checks = { pkceCodeVerifier, expectedState: oidc.randomState(), expectedNonce: oidc.randomNonce() };
    const params = {
      ...web,
      scope: "openid profile",
      state: checks.expectedState,
      nonce: checks.expectedNonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: "S256",
    };

    const answer = await loginAcrossNodes(new RawBrowser(), params);
    const response = responseParams(answer);
    expect(answer.location!.startsWith(`${web.redirect_uri}?`)).toBe(true);
    expect(response.get("iss")).toBe(a.issuer);
    expect(response.get("state")).toBe(checks.expectedState);

    // openid-client redeems at the discovered token endpoint: node A's.
    expect(config.serverMetadata().token_endpoint).toBe(`${a.url}/connect/token`);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(answer.location!), checks);
    expect(tokens.claims()).toMatchObject({ iss: a.issuer, sub: "E10001", aud: "demo-web", amr: ["password"] });
  });

  it("signs the browser in on node B as well: an authorize there with the session cookie gets a code at once (SSO)", async () => {
    const browser = new RawBrowser();
    const login = await loginAcrossNodes(browser, { ...web, scope: "openid profile" });
    const sid = await redeemedSid(login.location!, web.client_id, { client_secret: "demo-web-secret" });

    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = { code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256" };
    const answer = await browser.get(authorizeUrl(b.url, { ...spa, ...challenge, state: "on-b" }));
    const response = responseParams(answer);
    expect(answer.location!.startsWith(`${spa.redirect_uri}?`)).toBe(true);
    expect(response.get("state")).toBe("on-b");
    expect(response.get("iss")).toBe(a.issuer);

    expect(await redeemedSid(answer.location!, spa.client_id, { code_verifier: verifier }, spa.redirect_uri)).toBe(sid);
  });
});

describe.skipIf(!redisUrl)("two provider processes on one Redis: a QR-code login whose phone talks to the other node", () => {
  let a: TestProvider;
  let b: ProviderProcess;

  beforeAll(async () => {
    a = await startTestProvider({ storeUrl: `${redisUrl}?prefix=two-processes-qr-${Date.now()}` });
    b = await startSiblingProcess(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  it("wakes node A's long-poll when the phone scans and approves on node B, and finishes on node B", async () => {
    // The phone enrolls, scans and approves through node B; the login page and its poll are on node A.
    const phone = await TrustedAppClient.enroll(await operatorEnrollUri(a, "E10001"), "Alice's phone", { server: b.url });
    const { browser, page, uri } = await openQrLogin(a);
    const waiting = browser.get(`${challengeOf(page).pollUrl}?seen=pending`);
    await phone.scan(uri);
    expect(JSON.parse((await waiting).text)).toEqual({ state: "scanned" });

    const approval = await press(browser, page, "CHECK");
    expect(approval.text).toContain("Scanned by Alice&#x27;s phone.");
    const approved = browser.get(`${challengeOf(approval).pollUrl}?seen=scanned`);
    await phone.approve(numberOn(approval));
    expect(JSON.parse((await approved).text)).toEqual({ state: "approved" });

    // The page's CHECK reaches node B (a load balancer may send it anywhere).
    const onB = new URL(formAction(approval.text, approval.url));
    onB.host = new URL(b.url).host;
    const done = await browser.post(onB.href, { csrf: hiddenField(approval.text, "csrf")!, event: "CHECK" });
    const code = responseParams(done).get("code")!;
    const tokens = await postForm(`${b.url}/connect/token`, {
      grant_type: "authorization_code",
      client_id: "demo-web",
      client_secret: "demo-web-secret",
      code,
      redirect_uri: "http://localhost:3001/callback",
    });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(a, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["qrcode"] });
  });
});
