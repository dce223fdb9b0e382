import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SigningAlg } from "../../src/crypto/signing-alg.ts";
import { loginWithPassword } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startAuthorization } from "../support/rp-authorization.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { appendTo, clientEntry } from "../http/helpers.ts";

/**
 * Clients that chose PS256 or ES256 (clients.yaml `id_token_signed_response_alg`,
 * `access_token_signed_response_alg`), driven by openid-client v6 told the same in its client metadata:
 * it validates the ID token's signature and refuses one of another alg. Their access tokens verify with
 * jose against the JWKS, accepting only that alg, and the provider's own userinfo and introspection take
 * them; the ID token works as id_token_hint at end session, and the back-channel logout token comes
 * signed as the ID tokens are. demo-web, which chose nothing, still gets RS256 exactly as before.
 */
const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];
const SCOPE = "openid profile offline_access acme";

interface ChosenClient {
  clientId: string;
  alg: SigningAlg;
}
const CHOSEN: ChosenClient[] = [
  { clientId: "fapi-es", alg: "ES256" },
  { clientId: "fapi-ps", alg: "PS256" },
];
const secretOf = (clientId: string) => `${clientId}-secret`;

let op: TestProvider;
let rp: Server;
let rpUrl: string;
/** Logout tokens the loopback relying party received, per client. */
const logoutTokens = new Map<string, string[]>();

const redirectUri = (clientId: string) => `${rpUrl}/cb/${clientId}`;
const postLogoutUri = (clientId: string) => `${rpUrl}/bye/${clientId}`;

beforeAll(async () => {
  rp = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const clientId = (req.url ?? "").replace("/backchannel/", "");
      logoutTokens.set(clientId, [...(logoutTokens.get(clientId) ?? []), new URLSearchParams(body).get("logout_token") ?? ""]);
      res.writeHead(200, { "cache-control": "no-store" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => rp.listen(0, "127.0.0.1", resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  op = await startTestProvider({
    edits: {
      "clients.yaml": appendTo(
        "clients",
        CHOSEN.map(({ clientId, alg }) =>
          clientEntry(
            clientId,
            secretOf(clientId),
            ["authorization_code", "refresh_token"],
            ["openid", "profile", "offline_access", "acme"],
            {
              redirect_uris: [redirectUri(clientId)],
              post_logout_redirect_uris: [postLogoutUri(clientId)],
              backchannel_logout_uri: `${rpUrl}/backchannel/${clientId}`,
              offline_access: true,
              id_token_signed_response_alg: alg,
              access_token_signed_response_alg: alg,
            },
          ),
        ),
      ),
    },
  });
});
afterAll(async () => {
  await op?.close();
  await new Promise<void>((resolve) => (rp ? rp.close(() => resolve()) : resolve()));
});

/** openid-client for `clientId`, told its ID token algorithm as a registered client's metadata would. */
function relyingParty(clientId: string, alg?: SigningAlg): Promise<oidc.Configuration> {
  const metadata = alg === undefined ? undefined : { id_token_signed_response_alg: alg };
  return oidc.discovery(new URL(op.issuer), clientId, metadata, oidc.ClientSecretBasic(secretOf(clientId)), { execute });
}

async function codeFlow(config: oidc.Configuration, redirect: string, browser = new RawBrowser()) {
  const { url, checks } = await startAuthorization(config, { redirect_uri: redirect, scope: SCOPE });
  const answer = await loginWithPassword(browser, url.href);
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  return oidc.authorizationCodeGrant(config, new URL(answer.location!), checks);
}

/** What an API does with a JWT access token: check it against the JWKS, accepting exactly one algorithm. */
const apiVerify = (token: string, alg: SigningAlg) =>
  jwtVerify(token, createRemoteJWKSet(new URL(`${op.issuer}/.well-known/openid-configuration/jwks`)), {
    algorithms: [alg],
    issuer: op.issuer,
    typ: "at+jwt",
  });

async function introspected(token: string): Promise<unknown> {
  const answer = await postForm(`${op.url}/connect/introspect`, { token }, { authorization: basic("acme-api", "acme-api-secret") });
  expect(answer.status).toBe(200);
  return answer.json!.active;
}

async function waitForLogoutToken(clientId: string): Promise<string> {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const token = logoutTokens.get(clientId)?.[0];
    if (token !== undefined) return token;
  }
  throw new Error(`no logout token reached ${clientId}`);
}

describe("signing algorithms per client, through openid-client", { timeout: 60_000 }, () => {
  it("discovery lists every algorithm the ring signs with, RS256 first", async () => {
    const config = await relyingParty("demo-web");
    expect(config.serverMetadata().id_token_signing_alg_values_supported).toEqual(["RS256", "PS256", "ES256"]);
    const algs = ((await (await fetch(config.serverMetadata().jwks_uri!)).json()) as { keys: Array<{ alg: string; use: string }> }).keys;
    expect(new Set(algs.map((k) => `${k.alg} ${k.use}`))).toEqual(new Set(["RS256 sig", "PS256 sig", "ES256 sig"]));
  });

  it.each(CHOSEN)(
    "$alg ($clientId): ID tokens openid-client validates, access tokens APIs verify, hint and logout token alike",
    async ({ clientId, alg }) => {
      const config = await relyingParty(clientId, alg);
      const browser = new RawBrowser();
      const tokens = await codeFlow(config, redirectUri(clientId), browser);
      // openid-client checked the signature against the JWKS and that the header says the alg this client registered.
      expect(decodeProtectedHeader(tokens.id_token!).alg).toBe(alg);
      expect(tokens.claims()).toMatchObject({ sub: "E10001", aud: clientId });

      expect(decodeProtectedHeader(tokens.access_token).alg).toBe(alg);
      const { payload, protectedHeader } = await apiVerify(tokens.access_token, alg);
      expect(payload).toMatchObject({ sub: "E10001", client_id: clientId });
      expect(protectedHeader.kid).toBe(op.provider.keys.keys.signingKey(alg).kid);
      // The same token under another alg's allow-list is refused: the algorithm really is this one.
      await expect(apiVerify(tokens.access_token, "RS256")).rejects.toThrow(/alg/);
      // The provider's own verifiers take it.
      expect(await oidc.fetchUserInfo(config, tokens.access_token, "E10001")).toMatchObject({ sub: "E10001" });
      expect(await introspected(tokens.access_token)).toBe(true);

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      expect(decodeProtectedHeader(refreshed.id_token!).alg).toBe(alg);
      expect(decodeProtectedHeader(refreshed.access_token).alg).toBe(alg);
      expect(await introspected(refreshed.access_token)).toBe(true);
      // Revocation reads the token as introspection does: revoked, it is inactive and userinfo refuses it.
      await oidc.tokenRevocation(config, refreshed.access_token, { token_type_hint: "access_token" });
      expect(await introspected(refreshed.access_token)).toBe(false);
      await expect(oidc.fetchUserInfo(config, refreshed.access_token, "E10001")).rejects.toMatchObject({ status: 401 });

      // End session with the ID token as id_token_hint: accepted, so no confirmation page; single sign-out follows.
      const endSession = oidc.buildEndSessionUrl(config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: postLogoutUri(clientId),
      });
      const ended = await browser.get(endSession.href);
      expect(ended.status, ended.text.slice(0, 300)).toBe(303);
      expect(ended.location).toBe(postLogoutUri(clientId));
      const logoutToken = await waitForLogoutToken(clientId);
      expect(decodeProtectedHeader(logoutToken)).toMatchObject({ alg, typ: "logout+jwt" });
      await expect(
        jwtVerify(logoutToken, createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)), {
          algorithms: [alg],
          issuer: op.issuer,
          audience: clientId,
          typ: "logout+jwt",
        }),
      ).resolves.toMatchObject({ payload: { sub: "E10001" } });
    },
  );

  it("refuses, in openid-client, an ID token of another alg than the client registered", async () => {
    // demo-web gets RS256; a relying party that registered ES256 must not take it.
    const config = await relyingParty("demo-web", "ES256");
    await expect(codeFlow(config, "http://localhost:3001/callback")).rejects.toMatchObject({
      cause: { message: 'unexpected JWT "alg" header parameter' },
    });
  });

  it("keeps RS256 for a client that chose nothing", async () => {
    const config = await relyingParty("demo-web");
    const tokens = await codeFlow(config, "http://localhost:3001/callback");
    expect(decodeProtectedHeader(tokens.id_token!)).toMatchObject({ alg: "RS256", kid: op.provider.keys.keys.signingKey("RS256").kid });
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe("RS256");
    await expect(apiVerify(tokens.access_token, "RS256")).resolves.toMatchObject({ payload: { client_id: "demo-web" } });
    expect(await oidc.fetchUserInfo(config, tokens.access_token, "E10001")).toMatchObject({ sub: "E10001" });
  });
});
