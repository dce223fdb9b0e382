import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginWithPassword } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startAuthorization } from "../support/rp-authorization.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { dpopKey, dpopProof, type DpopKey } from "../support/dpop-proof.ts";
import { collectAudit } from "../support/audited-login.ts";
import { appendTo, clientEntry, decodeJwt, expectNoInternals, verifyWithJwks } from "../http/helpers.ts";

/**
 * DPoP (RFC 9449) driven by a real DPoP client, openid-client v6 (getDPoPHandle, `{ DPoP }` on every
 * grant and on userinfo), and attacked with hand-made proofs: every grant binds its access token to the
 * proof's key (`cnf.jkt`, token_type DPoP), userinfo and introspection honour the binding, and a bound
 * token is useless without its key.
 */
const execute = [oidc.allowInsecureRequests];
const WEB = { id: "demo-web", secret: "demo-web-secret", redirect: "http://localhost:3001/callback" };
const SPA = { id: "demo-spa", redirect: "http://localhost:3002/callback" };
const STRICT = { id: "dpop-only-service", secret: "dpop-only-service-secret" };

let op: TestProvider;
let web: oidc.Configuration;
let api: oidc.Configuration;

beforeAll(async () => {
  op = await startTestProvider({
    edits: {
      // demo-spa, a public client, may refresh: its refresh tokens are bound to its key.
      "clients.yaml": {
        "clients.1.grant_types": ["authorization_code", "refresh_token"],
        "clients.1.offline_access": true,
        "clients.1.allowed_scopes": ["openid", "profile", "offline_access"],
        ...appendTo("clients", [clientEntry(STRICT.id, STRICT.secret, ["client_credentials"], ["acme"], { require_dpop: true })]),
      },
    },
  });
  web = await oidc.discovery(new URL(op.issuer), WEB.id, undefined, oidc.ClientSecretBasic(WEB.secret), { execute });
  api = await oidc.discovery(new URL(op.issuer), "acme-api", undefined, oidc.ClientSecretBasic("acme-api-secret"), { execute });
});
afterAll(() => op?.close());

/** A code flow of demo-web (or `config`'s client) up to the token response, with `DPoP` on the token request. */
async function codeFlow(
  config: oidc.Configuration,
  redirectUri: string,
  DPoP: oidc.DPoPHandle | undefined,
  extra: Record<string, string> = {},
) {
  const { url, checks } = await startAuthorization(config, { redirect_uri: redirectUri, scope: "openid profile offline_access", ...extra });
  const answer = await loginWithPassword(new RawBrowser(), url.href);
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  return oidc.authorizationCodeGrant(config, new URL(answer.location!), checks, undefined, DPoP ? { DPoP } : {});
}

const userinfo = `/connect/userinfo`;
const callUserinfo = (headers: Record<string, string>) => send(op.url + userinfo, { headers });
const userinfoProof = (key: DpopKey, token: string | undefined, claims: Record<string, unknown> = {}) =>
  dpopProof(key, { htm: "GET", htu: op.issuer + userinfo, ...(token !== undefined && { accessToken: token }), ...claims });

describe("openid-client with DPoP", () => {
  it("code flow: a DPoP token bound to the key, userinfo with a proof, introspection with cnf, a refresh that stays bound", async () => {
    const key = await dpopKey();
    const DPoP = oidc.getDPoPHandle(web, key);
    const tokens = await codeFlow(web, WEB.redirect, DPoP, { scope: "openid profile offline_access acme" });
    expect(tokens.token_type).toBe("dpop");
    const { payload } = await verifyWithJwks(op, tokens.access_token);
    expect(payload.cnf).toEqual({ jkt: key.jkt });

    expect(await oidc.fetchUserInfo(web, tokens.access_token, "E10001", { DPoP })).toMatchObject({ sub: "E10001" });

    const introspected = await oidc.tokenIntrospection(api, tokens.access_token);
    expect(introspected).toMatchObject({ active: true, token_type: "DPoP", cnf: { jkt: key.jkt } });

    // A confidential client's refresh token is not bound (its authentication binds it), but a refresh
    // with a proof gets a token bound to that proof's key.
    const refreshed = await oidc.refreshTokenGrant(web, tokens.refresh_token!, undefined, { DPoP });
    expect(refreshed.token_type).toBe("dpop");
    expect(decodeJwt(refreshed.access_token).payload.cnf).toEqual({ jkt: key.jkt });

    // Revoking a bound token works like any other, and userinfo then refuses it even with a good proof.
    await oidc.tokenRevocation(web, refreshed.access_token);
    expect(await oidc.tokenIntrospection(api, refreshed.access_token)).toEqual({ active: false });
    await expect(oidc.fetchUserInfo(web, refreshed.access_token, "E10001", { DPoP })).rejects.toMatchObject({ status: 401 });
  });

  it("client_credentials and password: DPoP tokens bound to the key, audited with it; without a proof, Bearer tokens as before", async () => {
    const events = collectAudit(op);
    const key = await dpopKey();
    const service = await oidc.discovery(new URL(op.issuer), "demo-service", undefined, oidc.ClientSecretBasic("demo-service-secret"), {
      execute,
    });
    const bound = await oidc.clientCredentialsGrant(service, { scope: "acme" }, { DPoP: oidc.getDPoPHandle(service, key) });
    expect(bound.token_type).toBe("dpop");
    expect((await verifyWithJwks(op, bound.access_token)).payload.cnf).toEqual({ jkt: key.jkt });
    const bearer = await oidc.clientCredentialsGrant(service, { scope: "acme" });
    expect(bearer.token_type).toBe("bearer");
    expect(decodeJwt(bearer.access_token).payload.cnf).toBeUndefined();

    const legacy = await oidc.discovery(new URL(op.issuer), "demo-legacy", undefined, oidc.ClientSecretBasic("demo-legacy-secret"), {
      execute,
    });
    const password = await oidc.genericGrantRequest(
      legacy,
      "password",
      { username: "alice", password: "alice-password", scope: "openid" },
      { DPoP: oidc.getDPoPHandle(legacy, key) },
    );
    expect(password.token_type).toBe("dpop");
    expect((await verifyWithJwks(op, password.access_token)).payload.cnf).toEqual({ jkt: key.jkt });
    const issued = events.filter((e) => e.type === "token.issued").map((e) => [e.grant, e.dpop_jkt]);
    expect(issued).toEqual([
      ["client_credentials", key.jkt],
      ["client_credentials", undefined],
      ["password", key.jkt],
    ]);
  });

  it("a public client's refresh token is bound to its key: another key cannot refresh it, the right one can", async () => {
    const spa = await oidc.discovery(new URL(op.issuer), SPA.id, undefined, oidc.None(), { execute });
    const key = await dpopKey();
    const tokens = await codeFlow(spa, SPA.redirect, oidc.getDPoPHandle(spa, key));
    expect(tokens.refresh_token).toBeDefined();

    const thief = oidc.getDPoPHandle(spa, await dpopKey());
    await expect(oidc.refreshTokenGrant(spa, tokens.refresh_token!, undefined, { DPoP: thief })).rejects.toMatchObject({
      error: "invalid_grant",
    });
    await expect(oidc.refreshTokenGrant(spa, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_dpop_proof" });

    // The refused attempts used nothing up: the holder of the key refreshes, and the successor stays bound.
    const DPoP = oidc.getDPoPHandle(spa, key);
    const refreshed = await oidc.refreshTokenGrant(spa, tokens.refresh_token!, undefined, { DPoP });
    expect(decodeJwt(refreshed.access_token).payload.cnf).toEqual({ jkt: key.jkt });
    await expect(oidc.refreshTokenGrant(spa, refreshed.refresh_token!, undefined, { DPoP: thief })).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("a public client that starts using DPoP at a refresh gets a successor bound to that key", async () => {
    const spa = await oidc.discovery(new URL(op.issuer), SPA.id, undefined, oidc.None(), { execute });
    const unbound = await codeFlow(spa, SPA.redirect, undefined);
    expect(unbound.token_type).toBe("bearer");
    const key = await dpopKey();
    const bound = await oidc.refreshTokenGrant(spa, unbound.refresh_token!, undefined, { DPoP: oidc.getDPoPHandle(spa, key) });
    expect(decodeJwt(bound.access_token).payload.cnf).toEqual({ jkt: key.jkt });
    await expect(oidc.refreshTokenGrant(spa, bound.refresh_token!)).rejects.toMatchObject({ error: "invalid_dpop_proof" });
  });

  it("dpop_jkt at authorize binds the code: a proof by another key cannot redeem it, nor no proof", async () => {
    const key = await dpopKey();
    const { url, checks } = await startAuthorization(web, { redirect_uri: WEB.redirect, scope: "openid", dpop_jkt: key.jkt });
    const answer = await loginWithPassword(new RawBrowser(), url.href);
    const callback = new URL(answer.location!);
    await expect(
      oidc.authorizationCodeGrant(web, callback, checks, undefined, { DPoP: oidc.getDPoPHandle(web, await dpopKey()) }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.authorizationCodeGrant(web, callback, checks)).rejects.toMatchObject({ error: "invalid_dpop_proof" });
    const tokens = await oidc.authorizationCodeGrant(web, callback, checks, undefined, { DPoP: oidc.getDPoPHandle(web, key) });
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: key.jkt });
  });

  it("refuses a dpop_jkt that is not a thumbprint at authorize", async () => {
    const { url } = await startAuthorization(web, { redirect_uri: WEB.redirect, scope: "openid", dpop_jkt: "not-a-thumbprint" });
    const answer = await new RawBrowser().get(url.href);
    expect(new URL(answer.location!).searchParams.get("error")).toBe("invalid_request");
  });

  it("a reference token keeps its binding in its record: introspection answers cnf and token_type DPoP", async () => {
    const portal = await oidc.discovery(new URL(op.issuer), "demo-portal", undefined, oidc.ClientSecretBasic("demo-portal-secret"), {
      execute,
    });
    const key = await dpopKey();
    const tokens = await oidc.clientCredentialsGrant(portal, { scope: "acme" }, { DPoP: oidc.getDPoPHandle(portal, key) });
    expect(tokens.access_token).toMatch(/^[\w-]{43}$/);
    expect(await oidc.tokenIntrospection(api, tokens.access_token)).toMatchObject({
      active: true,
      token_type: "DPoP",
      cnf: { jkt: key.jkt },
    });
  });

  it("a client with require_dpop gets no token without a proof, and a bound one with it", async () => {
    const strict = await oidc.discovery(new URL(op.issuer), STRICT.id, undefined, oidc.ClientSecretBasic(STRICT.secret), { execute });
    await expect(oidc.clientCredentialsGrant(strict)).rejects.toMatchObject({ error: "invalid_dpop_proof" });
    const key = await dpopKey();
    const tokens = await oidc.clientCredentialsGrant(strict, undefined, { DPoP: oidc.getDPoPHandle(strict, key) });
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: key.jkt });
  });

  it("the admin API takes a DPoP token with a proof for the issuer's URL of the call, and refuses it as a bearer token", async () => {
    const tool = await oidc.discovery(
      new URL(op.issuer),
      "demo-security-tool",
      undefined,
      oidc.ClientSecretBasic("demo-security-tool-secret"),
      {
        execute,
      },
    );
    const DPoP = oidc.getDPoPHandle(tool, await dpopKey());
    const { access_token } = await oidc.clientCredentialsGrant(tool, { scope: "portcullis:admin" }, { DPoP });
    const sessions = new URL(`${op.issuer}/admin/users/alice/sessions`);
    expect((await oidc.fetchProtectedResource(tool, access_token, sessions, "GET", undefined, undefined, { DPoP })).status).toBe(200);
    const asBearer = await send(sessions.href, { headers: { authorization: `Bearer ${access_token}` } });
    expect({ status: asBearer.status, error: asBearer.json?.error }).toEqual({ status: 401, error: "invalid_token" });
  });

  it("advertises the proof algorithms in discovery", () => {
    expect(web.serverMetadata().dpop_signing_alg_values_supported).toEqual(["ES256", "PS256", "RS256", "EdDSA"]);
  });
});

describe("attacks on a bound token and on proofs", () => {
  let key: DpopKey;
  let token: string;

  beforeAll(async () => {
    key = await dpopKey();
    token = (await codeFlow(web, WEB.redirect, oidc.getDPoPHandle(web, key))).access_token;
  });

  it("refuses the bound token presented as a bearer token, in the header or the form body", async () => {
    const res = await callUserinfo({ authorization: `Bearer ${token}` });
    expect({ status: res.status, error: res.json?.error }).toEqual({ status: 401, error: "invalid_token" });
    expect(res.headers.get("www-authenticate")).toMatch(/^DPoP realm="portcullis", error="invalid_token"/);
    const form = await postForm(op.url + userinfo, { access_token: token });
    expect({ status: form.status, error: form.json?.error }).toEqual({ status: 401, error: "invalid_token" });
  });

  it("refuses the bound token with a proof by another key", async () => {
    const other = await dpopKey();
    const res = await callUserinfo({ authorization: `DPoP ${token}`, dpop: await userinfoProof(other, token) });
    expect({ status: res.status, error: res.json?.error }).toEqual({ status: 401, error: "invalid_token" });
    expectNoInternals(res.text);
  });

  it("refuses the DPoP scheme without a proof, a proof without ath, for another method or URL, or stale", async () => {
    const cases: Record<string, string>[] = [
      {},
      { dpop: await userinfoProof(key, undefined) },
      { dpop: await userinfoProof(key, token, { htm: "POST" }) },
      { dpop: await userinfoProof(key, token, { htu: `${op.issuer}/connect/token` }) },
      { dpop: await userinfoProof(key, token, { iat: Math.floor(Date.now() / 1000) - 600 }) },
    ];
    for (const extra of cases) {
      const res = await callUserinfo({ authorization: `DPoP ${token}`, ...extra });
      expect({ status: res.status, error: res.json?.error }, JSON.stringify(extra)).toEqual({ status: 401, error: "invalid_dpop_proof" });
      expect(res.headers.get("www-authenticate")).toMatch(/^DPoP .*error="invalid_dpop_proof".*algs="ES256 PS256 RS256 EdDSA"/);
      expectNoInternals(res.text);
    }
  });

  it("accepts a proof once: replayed, it is refused", async () => {
    const proof = await userinfoProof(key, token);
    expect((await callUserinfo({ authorization: `DPoP ${token}`, dpop: proof })).status).toBe(200);
    const replay = await callUserinfo({ authorization: `DPoP ${token}`, dpop: proof });
    expect({ status: replay.status, error: replay.json?.error }).toEqual({ status: 401, error: "invalid_dpop_proof" });
  });

  it("refuses an unbound token presented with the DPoP scheme", async () => {
    const bearer = (
      await postForm(
        `${op.url}/connect/token`,
        { grant_type: "client_credentials", scope: "acme" },
        { authorization: basic("demo-service", "demo-service-secret") },
      )
    ).json!.access_token as string;
    const res = await callUserinfo({ authorization: `DPoP ${bearer}`, dpop: await userinfoProof(key, bearer) });
    expect({ status: res.status, error: res.json?.error }).toEqual({ status: 401, error: "invalid_token" });
  });

  it("refuses a token request proof for another URL or method, or replayed", async () => {
    const service = { authorization: basic("demo-service", "demo-service-secret") };
    const tokenUrl = `${op.issuer}/connect/token`;
    const request = (dpop: string) => postForm(`${op.url}/connect/token`, { grant_type: "client_credentials" }, { ...service, dpop });
    for (const claims of [
      { htm: "POST", htu: `${op.issuer}/connect/userinfo` },
      { htm: "GET", htu: tokenUrl },
    ]) {
      const res = await request(await dpopProof(key, claims));
      expect({ status: res.status, error: res.json?.error }).toEqual({ status: 400, error: "invalid_dpop_proof" });
      expectNoInternals(res.text);
    }
    const proof = await dpopProof(key, { htm: "POST", htu: tokenUrl });
    expect((await request(proof)).status).toBe(200);
    expect((await request(proof)).json?.error).toBe("invalid_dpop_proof");
  });
});

describe("with server nonces required", () => {
  let strict: TestProvider;
  afterAll(() => strict?.close());

  it("openid-client follows the nonce challenges of the token endpoint and userinfo, and each answer hands out the next nonce", async () => {
    strict = await startTestProvider({ edits: { "provider.yaml": { "dpop.require_nonce": true } } });
    const config = await oidc.discovery(new URL(strict.issuer), WEB.id, undefined, oidc.ClientSecretBasic(WEB.secret), { execute });
    const key = await dpopKey();
    const DPoP = oidc.getDPoPHandle(config, key);
    const { url, checks } = await startAuthorization(config, { redirect_uri: WEB.redirect, scope: "openid profile" });
    const answer = await loginWithPassword(new RawBrowser(), url.href);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(answer.location!), checks, undefined, { DPoP });
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: key.jkt });
    expect(await oidc.fetchUserInfo(config, tokens.access_token, "E10001", { DPoP })).toMatchObject({ sub: "E10001" });

    // By hand: a proof without a nonce is challenged at userinfo with 401 and the nonce; with it, 200 and the next one.
    const userinfoUrl = `${strict.issuer}/connect/userinfo`;
    const call = async (nonce?: string) =>
      send(`${strict.url}/connect/userinfo`, {
        headers: {
          authorization: `DPoP ${tokens.access_token}`,
          dpop: await dpopProof(key, {
            htm: "GET",
            htu: userinfoUrl,
            accessToken: tokens.access_token,
            ...(nonce !== undefined && { nonce }),
          }),
        },
      });
    const challenged = await call();
    expect({ status: challenged.status, error: challenged.json?.error }).toEqual({ status: 401, error: "use_dpop_nonce" });
    expect(challenged.headers.get("www-authenticate")).toMatch(/^DPoP realm="portcullis", error="use_dpop_nonce"/);
    const ok = await call(challenged.headers.get("dpop-nonce")!);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("dpop-nonce")).toMatch(/^[\w-]{43}$/);
  });
});
