import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/backends.ts";
import { codeTokens, mintCode, redeemCode, refresh, verifyIdToken } from "../support/code-grant.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * What a claims parameter added rides with the code and the refresh token on every store: a refreshed ID
 * token and userinfo on a refreshed access token carry the same claims, and a presented refresh token still
 * releases nothing beyond the client's allowed scopes.
 */
describe.each(availableBackends())("requested claims kept by the $name store", ({ url: storeUrl }) => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider({ storeUrl });
  }, 120_000);
  afterAll(() => p?.close());

  const userinfo = async (token: string) => {
    const res = await send(`${p.url}/connect/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, res.text).toBe(200);
    return res.json;
  };

  it("survives the code and two refreshes", async () => {
    const requestedClaims = { idToken: ["given_name", "birthdate"], userinfo: ["email_verified", "family_name"] };
    const tokens = await codeTokens(p, { scopes: ["openid", "offline_access"], requestedClaims });
    expect(await verifyIdToken(p, tokens.id_token!)).toMatchObject({ given_name: "Alice", birthdate: "1990/04/12" });
    let refreshToken = tokens.refresh_token!;
    for (let i = 0; i < 2; i++) {
      const refreshed = await refresh(p, refreshToken);
      expect(refreshed.status, refreshed.text).toBe(200);
      refreshToken = refreshed.json!.refresh_token as string;
      expect(await verifyIdToken(p, refreshed.json!.id_token as string)).toMatchObject({ given_name: "Alice", birthdate: "1990/04/12" });
      expect(await userinfo(refreshed.json!.access_token as string)).toEqual({ sub: "E10001", email_verified: true, family_name: "Chen" });
    }
  });

  it("keeps them in a reference access token's stored claims, which userinfo reads", async () => {
    const portal = { id: "demo-portal", secret: "demo-portal-secret" };
    const redirectUri = "http://localhost:3003/callback";
    const code = await mintCode(p, { clientId: portal.id, redirectUri, scopes: ["openid"], requestedClaims: { userinfo: ["given_name"] } });
    const tokens = await redeemCode(p, code, { redirect_uri: redirectUri }, portal);
    expect(tokens.status, tokens.text).toBe(200);
    const accessToken = tokens.json!.access_token as string;
    expect(accessToken.split(".")).toHaveLength(1);
    expect(await userinfo(accessToken)).toEqual({ sub: "E10001", given_name: "Alice" });
  });

  it("releases from a stored request only what the client's allowed scopes release today", async () => {
    // A grant that names claims no scope of demo-web releases (a store written by hand, or a policy narrowed since).
    const requestedClaims = { idToken: ["given_name", "password_hash", "sub"], userinfo: ["username", "disabled"] };
    const tokens = await codeTokens(p, { scopes: ["openid"], requestedClaims });
    const idToken = await verifyIdToken(p, tokens.id_token!);
    expect(idToken.given_name).toBe("Alice");
    expect(idToken).not.toHaveProperty("password_hash");
    expect(await userinfo(tokens.access_token)).toEqual({ sub: "E10001" });
  });
});
