/**
 * Reference access tokens over HTTP (demo-portal has `access_token_format: reference`): every grant of
 * the client issues an opaque handle, introspection answers the same members as for a JWT, revocation
 * deletes the record (and leaves another client's token alone, RFC 7009 §2.1), and the revocations
 * that work by jti (a reused code) reach reference tokens too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeKeyHash } from "../../src/crypto/store-key-hash.ts";
import { mintCode, redeemCode, refresh } from "../support/code-grant.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import {
  clientCredentialsToken,
  expectOAuthError,
  introspect,
  requestPassword,
  revoke,
  send,
  SERVICE,
  type FormResponse,
} from "./helpers.ts";

const PORTAL = { id: "demo-portal", secret: "demo-portal-secret" } as const;
const PORTAL_CODE = { clientId: PORTAL.id, redirectUri: "http://localhost:3003/callback" };
const PORTAL_REDEEM = { redirect_uri: PORTAL_CODE.redirectUri };
const HANDLE = /^[A-Za-z0-9_-]{43}$/;

let p: TestProvider;

beforeAll(async () => {
  // demo-portal also gets the password grant here, so every grant is covered.
  p = await startTestProvider({
    edits: { "clients.yaml": { "clients.4.grant_types": ["authorization_code", "refresh_token", "client_credentials", "password"] } },
  });
});
afterAll(() => p?.close());

async function introspection(token: string): Promise<Record<string, unknown>> {
  const res = await introspect(p, token);
  expect(res.status, res.text).toBe(200);
  return res.json!;
}

const userinfo = (token: string) => send(`${p.url}/connect/userinfo`, { headers: { authorization: `Bearer ${token}` } });

function expectInvalidToken(res: FormResponse) {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status: 401, error: "invalid_token" });
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]+", error="invalid_token"/);
}

describe("issuing", () => {
  it("gives an opaque handle for every grant of a reference client, a JWT for the others", async () => {
    const redeemed = await redeemCode(p, await mintCode(p, PORTAL_CODE), PORTAL_REDEEM, PORTAL);
    expect(redeemed.status, redeemed.text).toBe(200);
    const refreshed = await refresh(p, redeemed.json!.refresh_token as string, {}, PORTAL);
    expect(refreshed.status, refreshed.text).toBe(200);
    const password = await requestPassword(p, "alice", "alice-password", { scope: "openid acme" }, PORTAL);
    expect(password.status, password.text).toBe(200);
    const service = await clientCredentialsToken(p, PORTAL);
    for (const token of [redeemed.json!.access_token, refreshed.json!.access_token, password.json!.access_token, service]) {
      expect(token).toMatch(HANDLE);
      expect((await introspection(token as string)).active).toBe(true);
    }
    expect((await clientCredentialsToken(p, SERVICE)).split(".")).toHaveLength(3);
  });
});

describe("introspection", () => {
  it("answers the same members for a reference token as for a JWT of the same kind", async () => {
    const reference = await introspection(await clientCredentialsToken(p, PORTAL, "acme"));
    const jwt = await introspection(await clientCredentialsToken(p, SERVICE, "acme"));
    expect(Object.keys(reference).sort()).toEqual(Object.keys(jwt).sort());
    expect(reference).toEqual({
      active: true,
      token_type: "Bearer",
      scope: "acme",
      client_id: PORTAL.id,
      sub: PORTAL.id,
      iss: p.issuer,
      aud: "acme-api",
      exp: (reference.iat as number) + 3600,
      iat: expect.any(Number),
      jti: expect.any(String),
    });
  });

  it("shows a user's reference token with the login's amr, acr and auth_time, as it would a JWT's", async () => {
    const redeemed = await redeemCode(p, await mintCode(p, PORTAL_CODE), PORTAL_REDEEM, PORTAL);
    const answer = await introspection(redeemed.json!.access_token as string);
    expect(answer).toMatchObject({
      active: true,
      client_id: PORTAL.id,
      sub: "E10001",
      scope: "acme",
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
      auth_time: expect.any(Number),
    });
  });

  it("says inactive for garbage of either shape", async () => {
    const handle = await clientCredentialsToken(p, PORTAL);
    const notOurs = handle.slice(0, -1) + (handle.endsWith("A") ? "B" : "A");
    for (const token of [notOurs, "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJFMTAwMDEifQ.c2lnbmF0dXJl", `${handle}.${handle}`]) {
      expect(await introspection(token)).toEqual({ active: false });
    }
  });
});

describe("userinfo", () => {
  it("answers a user's reference token, and refuses a client_credentials one (not its audience) and garbage", async () => {
    const redeemed = await redeemCode(p, await mintCode(p, PORTAL_CODE), PORTAL_REDEEM, PORTAL);
    const ok = await userinfo(redeemed.json!.access_token as string);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ sub: "E10001" });
    expectInvalidToken(await userinfo(await clientCredentialsToken(p, PORTAL)));
    expectInvalidToken(await userinfo("A".repeat(43)));
  });
});

describe("revocation", () => {
  it("deletes the record of the client's own reference token: inactive at once, and nothing left in the store", async () => {
    const token = await clientCredentialsToken(p, PORTAL);
    expect(await p.provider.store.namespace("referenceTokens").get(storeKeyHash(token))).toBeDefined();
    const res = await revoke(p, token, PORTAL);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe("");
    expect(await p.provider.store.namespace("referenceTokens").get(storeKeyHash(token))).toBeUndefined();
    expect(await introspection(token)).toEqual({ active: false });
  });

  it("revokes a reference token sent with the refresh_token hint", async () => {
    const token = await clientCredentialsToken(p, PORTAL);
    expect((await revoke(p, token, PORTAL, "refresh_token")).status).toBe(200);
    expect(await introspection(token)).toEqual({ active: false });
  });

  it("answers 200 but leaves another client's reference token active (RFC 7009 §2.1)", async () => {
    const token = await clientCredentialsToken(p, PORTAL);
    const res = await revoke(p, token, SERVICE);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe("");
    expect((await introspection(token)).active).toBe(true);
  });

  it("refuses an unauthenticated revocation with invalid_client and leaves the token active", async () => {
    const token = await clientCredentialsToken(p, PORTAL);
    expectOAuthError(await revoke(p, token, { id: PORTAL.id, secret: "wrong" }), 401, "invalid_client");
    expect((await introspection(token)).active).toBe(true);
  });

  it("ends the refreshed reference token when its refresh token is revoked (the family, by jti)", async () => {
    const redeemed = await redeemCode(p, await mintCode(p, PORTAL_CODE), PORTAL_REDEEM, PORTAL);
    const refreshed = await refresh(p, redeemed.json!.refresh_token as string, {}, PORTAL);
    expect((await introspection(refreshed.json!.access_token as string)).active).toBe(true);
    expect((await revoke(p, refreshed.json!.refresh_token as string, PORTAL, "refresh_token")).status).toBe(200);
    expect(await introspection(refreshed.json!.access_token as string)).toEqual({ active: false });
    expect(await introspection(redeemed.json!.access_token as string)).toEqual({ active: false });
  });
});

describe("a reused code", () => {
  it("revokes the reference access token the first redemption issued", async () => {
    const code = await mintCode(p, PORTAL_CODE);
    const first = await redeemCode(p, code, PORTAL_REDEEM, PORTAL);
    expect(first.status, first.text).toBe(200);
    expect((await introspection(first.json!.access_token as string)).active).toBe(true);
    expectOAuthError(await redeemCode(p, code, PORTAL_REDEEM, PORTAL), 400, "invalid_grant");
    expect(await introspection(first.json!.access_token as string)).toEqual({ active: false });
  });
});
