/**
 * The authorization_code grant at POST /connect/token (SPEC "Token", "Authorization code"; RFC 6749
 * §4.1.3, RFC 7636, OIDC Core §3.1.3): codes bound to client, redirect_uri, PKCE and login_type, used
 * once, and a reused code revokes what it issued.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import {
  codeTokens,
  expectedAtHash,
  mintCode,
  redeemCode,
  refresh,
  SPA,
  SPA_REDIRECT,
  VERIFIER,
  verifyIdToken,
  WEB,
  WEB_REDIRECT,
} from "../support/code-grant.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { appendTo, clientEntry, decodeJwt, expectOAuthError, introspect, SERVICE, sleep, verifyWithJwks } from "./helpers.ts";

// A confidential client without offline access (config rules then forbid it offline_access and the
// refresh_token grant; its codes are minted with offline_access anyway, as defence in depth).
const NO_OFFLINE = { id: "web-no-offline", secret: "web-no-offline-secret" } as const;

let p: TestProvider;

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "clients.yaml": appendTo("clients", [
        clientEntry(NO_OFFLINE.id, NO_OFFLINE.secret, ["authorization_code"], ["openid", "profile", "acme"], {
          redirect_uris: [WEB_REDIRECT],
          offline_access: false,
        }),
      ]),
    },
  });
});
afterAll(() => p?.close());

async function isActive(accessToken: string): Promise<boolean> {
  const res = await introspect(p, accessToken);
  expect(res.status, res.text).toBe(200);
  return res.json!.active === true;
}

describe("successful redemption", () => {
  it("answers with a Bearer access token, its lifetime and the code's scope", async () => {
    const body = await codeTokens(p);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid profile acme offline_access" });
    const { payload } = await verifyWithJwks(p, body.access_token);
    expect(payload).toMatchObject({ sub: "E10001", client_id: WEB.id, scope: "openid profile acme offline_access" });
  });

  it("puts auth_time, amr, acr and sid in the access token", async () => {
    const authTime = Math.floor(Date.now() / 1000) - 42;
    const { access_token } = await codeTokens(p, { authTime });
    const { payload } = await verifyWithJwks(p, access_token);
    expect(payload).toMatchObject({ auth_time: authTime, amr: ["password", "totp", "mfa"], acr: "2fa", sid: "sid-7f3a" });
  });

  it("issues an ID token that verifies against the JWKS, with nonce, sid, amr, acr, auth_time and a correct at_hash", async () => {
    const authTime = Math.floor(Date.now() / 1000) - 42;
    const { access_token, id_token } = await codeTokens(p, { authTime, nonce: "nonce-xyz" });
    expect(decodeJwt(id_token!).header).toMatchObject({ alg: "RS256", typ: "JWT", kid: expect.any(String) });
    const claims = await verifyIdToken(p, id_token!);
    expect(claims).toMatchObject({
      iss: p.issuer,
      sub: "E10001",
      aud: WEB.id,
      nonce: "nonce-xyz",
      sid: "sid-7f3a",
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
      auth_time: authTime,
      at_hash: expectedAtHash(access_token),
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it("leaves nonce and sid out of the ID token when the code has none", async () => {
    const { id_token } = await codeTokens(p, { nonce: undefined, sid: undefined });
    const claims = await verifyIdToken(p, id_token!);
    expect(claims).not.toHaveProperty("nonce");
    expect(claims).not.toHaveProperty("sid");
  });

  it("adds the code's extra ID-token claims to the ID token", async () => {
    const gps = { lat: 22.54, lnt: 114.05, time: 1_700_000_000 };
    const { id_token } = await codeTokens(p, { idTokenClaims: { chnl: "wechat", gps } });
    expect(await verifyIdToken(p, id_token!)).toMatchObject({ chnl: "wechat", gps, sub: "E10001" });
  });

  it("puts the login claims (chnl, chnl_name, chnl_icon, gps, faceid) and the nonce in the access token too, and custom_scan in the ID token only", async () => {
    const gps = { lat: 22.54, lnt: 114.05, time: 1_700_000_000 };
    const faceid = { result: "pass", key: "k-1", time: 1_700_000_001 };
    const login = { chnl: "wechat", chnl_name: "WeChat", chnl_icon: "https://icons.example/wechat.png", gps, faceid };
    const { access_token, id_token, refresh_token } = await codeTokens(p, {
      nonce: "nonce-at",
      idTokenClaims: { ...login, custom_scan: "e30=" },
    });
    const { payload } = await verifyWithJwks(p, access_token);
    expect(payload).toMatchObject({ ...login, nonce: "nonce-at" });
    expect(payload).not.toHaveProperty("custom_scan");
    expect(await verifyIdToken(p, id_token!)).toMatchObject({ ...login, nonce: "nonce-at", custom_scan: "e30=" });

    // A refresh keeps the login claims in both tokens; the nonce was the authorize request's (OIDC Core §12.2).
    const refreshed = await refresh(p, refresh_token!);
    expect(refreshed.status, refreshed.text).toBe(200);
    const again = (await verifyWithJwks(p, refreshed.json!.access_token as string)).payload;
    expect(again).toMatchObject(login);
    expect(again).not.toHaveProperty("nonce");
  });

  it("leaves nonce out of the access token when the authorize request had none", async () => {
    const { access_token } = await codeTokens(p, { nonce: undefined });
    expect((await verifyWithJwks(p, access_token)).payload).not.toHaveProperty("nonce");
  });

  it("issues no ID token without openid", async () => {
    const body = await codeTokens(p, { scopes: ["acme", "offline_access"] });
    expect(body).not.toHaveProperty("id_token");
    expect(body.scope).toBe("acme offline_access");
  });

  it("issues a refresh token only with offline_access in the scope and offline access for the client", async () => {
    expect(await codeTokens(p)).toHaveProperty("refresh_token", expect.any(String));
    expect(await codeTokens(p, { scopes: ["openid", "acme"] })).not.toHaveProperty("refresh_token");
    // offline_access granted at authorize, but left out at the token request.
    expect(await codeTokens(p, {}, { scope: "openid acme" })).not.toHaveProperty("refresh_token");
    const code = await mintCode(p, { clientId: NO_OFFLINE.id });
    const res = await redeemCode(p, code, {}, NO_OFFLINE);
    expect(res.status, res.text).toBe(200);
    expect(res.json!.scope).toBe("openid profile acme offline_access");
    expect(res.json).not.toHaveProperty("refresh_token");
  });

  it("lets a public client redeem with client_id alone and its PKCE verifier", async () => {
    const code = await mintCode(p, { clientId: SPA.id, redirectUri: SPA_REDIRECT, scopes: ["openid", "profile"] });
    const res = await redeemCode(p, code, { redirect_uri: SPA_REDIRECT }, SPA);
    expect(res.status, res.text).toBe(200);
    expect(await verifyIdToken(p, res.json!.id_token as string, SPA.id)).toMatchObject({ sub: "E10001" });
  });

  it("accepts a plain challenge with its verifier", async () => {
    const body = await codeTokens(p, { codeChallenge: VERIFIER, codeChallengeMethod: "plain" });
    expect(body.access_token).toEqual(expect.any(String));
  });

  it("accepts the login_type the authorize request used", async () => {
    await codeTokens(p, { loginType: "MfaAcmeOtp" }, { login_type: "MfaAcmeOtp" });
  });
});

describe("scope", () => {
  it("uses the code's scope when scope is omitted", async () => {
    expect((await codeTokens(p, { scopes: ["openid", "acme"] })).scope).toBe("openid acme");
  });

  it("narrows to a subset of the code's scope", async () => {
    const body = await codeTokens(p, {}, { scope: "acme openid" });
    expect(body.scope).toBe("acme openid");
    expect(decodeJwt(body.access_token).payload.scope).toBe("acme openid");
  });

  it.each(["openid acme acme.api.msg", "email", "openid profile acme offline_access email"])(
    "answers scope %j beyond the code's with invalid_scope",
    async (scope) => {
      const code = await mintCode(p, { scopes: ["openid", "profile", "acme", "offline_access"] });
      expectOAuthError(await redeemCode(p, code, { scope }), 400, "invalid_scope");
    },
  );
});

describe("refusals", () => {
  it.each([
    ["code", { code: undefined }],
    ["redirect_uri", { redirect_uri: undefined }],
  ])("answers a missing %s with 400 invalid_request", async (_name, form) => {
    expectOAuthError(await redeemCode(p, await mintCode(p), form), 400, "invalid_request");
  });

  it("answers an unknown code with 400 invalid_grant", async () => {
    expectOAuthError(await redeemCode(p, "no-such-code-at-all"), 400, "invalid_grant");
  });

  it("answers an expired code with 400 invalid_grant", async () => {
    const code = await mintCode(p, {}, 0.05);
    await sleep(120);
    expectOAuthError(await redeemCode(p, code), 400, "invalid_grant");
  });

  it("answers a code issued to another client with 400 invalid_grant", async () => {
    const code = await mintCode(p);
    expectOAuthError(await redeemCode(p, code, {}, NO_OFFLINE), 400, "invalid_grant");
  });

  it.each([
    ["a trailing slash", `${WEB_REDIRECT}/`],
    ["another case", WEB_REDIRECT.replace("callback", "Callback")],
    ["another registered URI", "http://127.0.0.1:3001/callback"],
    ["a query added", `${WEB_REDIRECT}?x=1`],
    ["percent-encoding", WEB_REDIRECT.replace("callback", "%63allback")],
  ])("answers a redirect_uri with %s with 400 invalid_grant", async (_name, redirectUri) => {
    expectOAuthError(await redeemCode(p, await mintCode(p), { redirect_uri: redirectUri }), 400, "invalid_grant");
  });

  it("answers a missing code_verifier with 400 invalid_grant when the code has a challenge", async () => {
    expectOAuthError(await redeemCode(p, await mintCode(p), { code_verifier: undefined }), 400, "invalid_grant");
  });

  it("answers a code_verifier with 400 invalid_grant when the code has no challenge", async () => {
    const code = await mintCode(p, { codeChallenge: undefined, codeChallengeMethod: undefined });
    expectOAuthError(await redeemCode(p, code), 400, "invalid_grant");
  });

  it.each([
    ["another well-formed verifier", "A".repeat(43)],
    ["the challenge itself", s256Challenge(VERIFIER)],
    ["a verifier too short", VERIFIER.slice(0, 42)],
  ])("answers %s with 400 invalid_grant", async (_name, verifier) => {
    expectOAuthError(await redeemCode(p, await mintCode(p), { code_verifier: verifier }), 400, "invalid_grant");
  });

  it("answers a public client's code without a challenge with 400 invalid_grant", async () => {
    const code = await mintCode(p, {
      clientId: SPA.id,
      redirectUri: SPA_REDIRECT,
      scopes: ["openid"],
      codeChallenge: undefined,
      codeChallengeMethod: undefined,
    });
    expectOAuthError(await redeemCode(p, code, { redirect_uri: SPA_REDIRECT, code_verifier: undefined }, SPA), 400, "invalid_grant");
  });

  it.each([
    ["missing", undefined, "login_type is required: repeat the authorization request's login_type"],
    ["different", "MyVendor", "login_type does not match the authorization request's"],
    ["differently cased", "mfaacmeotp", "login_type does not match the authorization request's"],
  ])(
    "answers a %s login_type with 400 invalid_grant when the code has one, saying what to send; the code stays for the right one",
    async (_name, loginType, description) => {
      const code = await mintCode(p, { loginType: "MfaAcmeOtp" });
      const refused = await redeemCode(p, code, { login_type: loginType });
      expectOAuthError(refused, 400, "invalid_grant");
      expect((refused.json as { error_description?: string }).error_description).toBe(description);
      // SPEC state table: only a request that meets the conditions moves the code to "used".
      const redeemed = await redeemCode(p, code, { login_type: "MfaAcmeOtp" });
      expect(redeemed.status, redeemed.text).toBe(200);
      expectOAuthError(await redeemCode(p, code, { login_type: "MfaAcmeOtp" }), 400, "invalid_grant");
    },
  );

  it("answers a client without the grant type with 400 unauthorized_client", async () => {
    expectOAuthError(await redeemCode(p, await mintCode(p, { clientId: SERVICE.id }), {}, SERVICE), 400, "unauthorized_client");
  });

  it("leaves the code as it was after a failed attempt (another client, redirect_uri or verifier): the right request then redeems it, once", async () => {
    const code = await mintCode(p);
    expectOAuthError(await redeemCode(p, code, {}, NO_OFFLINE), 400, "invalid_grant");
    expectOAuthError(await redeemCode(p, code, { redirect_uri: `${WEB_REDIRECT}/` }), 400, "invalid_grant");
    expectOAuthError(await redeemCode(p, code, { code_verifier: "B".repeat(43) }), 400, "invalid_grant");
    const redeemed = await redeemCode(p, code);
    expect(redeemed.status, redeemed.text).toBe(200);
    expectOAuthError(await redeemCode(p, code), 400, "invalid_grant");
  });

  it("treats any presentation after the redemption as a reuse, failing checks or not: what the redemption issued is revoked", async () => {
    const code = await mintCode(p);
    const { access_token } = (await redeemCode(p, code)).json as { access_token: string };
    expect(await isActive(access_token)).toBe(true);
    // A presentation after the redemption is a reuse, whatever else is wrong with it (RFC 6749 §4.1.2).
    expectOAuthError(await redeemCode(p, code, { code_verifier: "B".repeat(43) }), 400, "invalid_grant");
    expect(await isActive(access_token)).toBe(false);
  });
});

describe("a reused code", () => {
  it("is invalid_grant, and revokes the access and refresh tokens of the first redemption", async () => {
    const code = await mintCode(p);
    const first = await redeemCode(p, code);
    expect(first.status, first.text).toBe(200);
    const { access_token, refresh_token } = first.json as { access_token: string; refresh_token: string };
    expect(await isActive(access_token)).toBe(true);

    expectOAuthError(await redeemCode(p, code), 400, "invalid_grant");

    const introspection = await introspect(p, access_token);
    expect(introspection.status).toBe(200);
    expect(introspection.json).toEqual({ active: false });
    expectOAuthError(await refresh(p, refresh_token), 400, "invalid_grant");
  });

  it("also revokes what the first redemption's refresh token went on to issue", async () => {
    const code = await mintCode(p);
    const first = (await redeemCode(p, code)).json as { refresh_token: string };
    const refreshed = await refresh(p, first.refresh_token);
    expect(refreshed.status, refreshed.text).toBe(200);
    const { access_token, refresh_token } = refreshed.json as { access_token: string; refresh_token: string };

    expectOAuthError(await redeemCode(p, code), 400, "invalid_grant");

    expect(await isActive(access_token)).toBe(false);
    expectOAuthError(await refresh(p, refresh_token), 400, "invalid_grant");
  });

  it("is refused for another client too, and still revokes", async () => {
    const code = await mintCode(p);
    const { access_token } = (await redeemCode(p, code)).json as { access_token: string };
    expectOAuthError(await redeemCode(p, code, {}, NO_OFFLINE), 400, "invalid_grant");
    expect(await isActive(access_token)).toBe(false);
  });

  it("redeemed ten times at once: one 200, nine invalid_grant, and the one's tokens revoked", async () => {
    const code = await mintCode(p);
    const results = await Promise.all(Array.from({ length: 10 }, () => redeemCode(p, code)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expectOAuthError(res, 400, "invalid_grant");
    expect(await isActive(ok[0]!.json!.access_token as string)).toBe(false);
    expectOAuthError(await refresh(p, ok[0]!.json!.refresh_token as string), 400, "invalid_grant");
  });
});
