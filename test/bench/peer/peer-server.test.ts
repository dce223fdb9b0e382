/**
 * The bench's peer (bench/peer/): node-oidc-provider in its own process, configured like the demo, driven
 * by the bench's own flow code (bench/code-flow.ts) as the load generators drive it.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, FlowError, httpSender, logInAndRedeem, oneConnection, pkcePair, ssoCodeFlow } from "../../../bench/code-flow.ts";
import { DEMO_ISSUER, DEMO_PORTAL, DEMO_USERS, DEMO_WEB } from "../../../bench/demo-accounts.ts";
import { firstRefreshToken, refreshGrant } from "../../../bench/refresh-flow.ts";
import { tokenFormatOf } from "../../../bench/token-claims.ts";
import { DEMO_CLIENT_CREDENTIALS } from "../../../bench/scenarios.ts";
import { startPeer } from "../../../bench/servers.ts";
import type { RunningServer } from "../../../bench/workers.ts";

let peer: RunningServer;
const agent = oneConnection();

beforeAll(async () => {
  peer = await startPeer(0);
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await peer?.stop();
});

const jwks = () => createRemoteJWKSet(new URL("/.well-known/openid-configuration/jwks", peer.baseUrl));
const send = () => httpSender(peer.baseUrl, agent);

describe("the peer", () => {
  it("issues demo-service an RS256 at+jwt for the API that verifies against its JWKS, on the provider's token path", async () => {
    const response = await fetch(new URL("/connect/token", peer.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: DEMO_CLIENT_CREDENTIALS,
    });
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    const { payload, protectedHeader } = await jwtVerify(token, jwks(), {
      issuer: DEMO_ISSUER,
      audience: "acme-api",
      typ: "at+jwt",
      algorithms: ["RS256"],
    });
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload).toMatchObject({ sub: "demo-service", client_id: "demo-service", scope: "acme acme.api.msg" });
  });

  it("refuses a wrong client secret", async () => {
    const body = DEMO_CLIENT_CREDENTIALS.replace("demo-service-secret", "wrong");
    const response = await fetch(new URL("/connect/token", peer.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(response.status).toBe(401);
  });

  it("logs in through its password page, then honours the SSO session with a JWT access token and rotates refresh tokens", async () => {
    const { browser, tokens } = await logInAndRedeem(send(), DEMO_USERS[1], DEMO_WEB.scope);
    const { payload: idToken } = await jwtVerify(tokens.id_token, jwks(), { issuer: DEMO_ISSUER, audience: DEMO_WEB.clientId });
    expect(idToken.sub).toBe(DEMO_USERS[1].sub);

    const pkce = pkcePair();
    const sso = await ssoCodeFlow(browser, send(), "sso", pkce);
    const { payload: access } = await jwtVerify(sso.access_token, jwks(), {
      issuer: DEMO_ISSUER,
      audience: `${DEMO_ISSUER}/connect/userinfo`,
      typ: "at+jwt",
    });
    expect(access).toMatchObject({ sub: DEMO_USERS[1].sub, client_id: DEMO_WEB.clientId, scope: "openid profile" });

    const first = await firstRefreshToken(browser, send(), "refresh", pkce);
    const next = await refreshGrant(send(), first);
    expect(next.refresh_token).not.toBe(first);
    expect(decodeJwt(next.access_token).sub).toBe(DEMO_USERS[1].sub);
    // The rotated token is spent.
    await expect(refreshGrant(send(), first)).rejects.toThrow(FlowError);
  }, 30_000);

  it("gives demo-portal, the provider's reference-token client, opaque access tokens from the code and from each refresh", async () => {
    const { browser } = await logInAndRedeem(send(), DEMO_USERS[0], DEMO_WEB.scope);
    const pkce = pkcePair();
    const code = await ssoCodeFlow(browser, send(), "portal", pkce, DEMO_WEB.scope, DEMO_PORTAL);
    expect(tokenFormatOf(code.access_token)).toBe("reference");

    const first = await firstRefreshToken(browser, send(), "portal-refresh", pkce, DEMO_PORTAL);
    const next = await refreshGrant(send(), first, DEMO_PORTAL);
    expect(tokenFormatOf(next.access_token)).toBe("reference");
    const { payload: idToken } = await jwtVerify(next.id_token, jwks(), { issuer: DEMO_ISSUER, audience: DEMO_PORTAL.clientId });
    expect(idToken.sub).toBe(DEMO_USERS[0].sub);
    // Rotated as demo-web's are, and another client cannot use its tokens.
    await expect(refreshGrant(send(), first, DEMO_PORTAL)).rejects.toThrow(FlowError);
    await expect(refreshGrant(send(), next.refresh_token, DEMO_WEB)).rejects.toThrow(FlowError);
  }, 30_000);

  it("shows the login page again for a wrong password", async () => {
    const browser = new Browser(send());
    const flow = { scope: DEMO_WEB.scope, state: "st", nonce: "no", pkce: pkcePair() };
    const first = await browser.authorize(flow);
    expect("loginPage" in first).toBe(true);
    const wrong = { ...DEMO_USERS[0], password: "not-her-password" } as unknown as (typeof DEMO_USERS)[0];
    await expect(browser.logIn((first as { loginPage: string }).loginPage, wrong, flow.state)).rejects.toThrow(/login page came back/);
  }, 30_000);

  it("answers userinfo with the demo user's claims for the opaque token of a login that asked for email", async () => {
    const { tokens } = await logInAndRedeem(send(), DEMO_USERS[0], "openid profile email");
    expect(tokens.access_token.split(".")).toHaveLength(1);
    const response = await fetch(new URL("/connect/userinfo", peer.baseUrl), {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sub: DEMO_USERS[0].sub, email: "alice@example.com", name: "Alice Chen" });
  }, 30_000);

  it("requires PKCE", async () => {
    const browser = new Browser(send());
    await expect(browser.authorize({ scope: DEMO_WEB.scope, state: "st", nonce: "no" })).rejects.toThrow(
      /no code in the redirect: .*error=invalid_request/,
    );
  });
});
