import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/backends.ts";
import { loginWithPassword } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startAuthorization } from "../support/rp-authorization.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Both access-token formats through a certified relying-party library, openid-client v6: demo-web gets
 * JWTs, demo-portal reference handles (`access_token_format: reference`). The same story for each:
 * code flow → userinfo → introspection (by the API resource, also through openid-client) → refresh →
 * revocation → userinfo and introspection refuse the token. On every store backend, since a reference
 * token lives in the store.
 */
const FORMATS = [
  {
    format: "jwt",
    clientId: "demo-web",
    secret: "demo-web-secret",
    redirectUri: "http://localhost:3001/callback",
    shape: /^[\w-]+\.[\w-]+\.[\w-]+$/,
  },
  {
    format: "reference",
    clientId: "demo-portal",
    secret: "demo-portal-secret",
    redirectUri: "http://localhost:3003/callback",
    shape: /^[\w-]{43}$/,
  },
] as const;

const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];

describe.each(availableBackends())("access tokens of both formats, driven by openid-client on the $name store", ({ url: storeUrl }) => {
  let op: TestProvider;
  /** The API resource acme-api, which introspects with its ApiSecret. */
  let api: oidc.Configuration;

  beforeAll(async () => {
    op = await startTestProvider({ storeUrl });
    api = await oidc.discovery(new URL(op.issuer), "acme-api", undefined, oidc.ClientSecretBasic("acme-api-secret"), {
      execute: [oidc.allowInsecureRequests],
    });
  });
  afterAll(() => op?.close());

  it.each(FORMATS)(
    "$format ($clientId): code flow, userinfo, introspection, refresh, revocation, then userinfo fails",
    async ({ clientId, secret, redirectUri, shape }) => {
      const config = await oidc.discovery(new URL(op.issuer), clientId, undefined, oidc.ClientSecretBasic(secret), { execute });
      const { url, checks } = await startAuthorization(config, { redirect_uri: redirectUri, scope: "openid profile offline_access acme" });
      const answer = await loginWithPassword(new RawBrowser(), url.href);
      expect(answer.status, answer.text.slice(0, 300)).toBe(303);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(answer.location!), checks);
      // openid-client checked the ID token's signature and its at_hash over the access token, whatever its format.
      expect(tokens.access_token).toMatch(shape);
      expect(tokens.claims()).toMatchObject({ sub: "E10001", aud: clientId });

      expect(await oidc.fetchUserInfo(config, tokens.access_token, "E10001")).toMatchObject({ sub: "E10001", name: "Alice Chen" });

      const introspected = await oidc.tokenIntrospection(api, tokens.access_token);
      expect(introspected).toEqual({
        active: true,
        token_type: "Bearer",
        scope: "acme",
        client_id: clientId,
        sub: "E10001",
        iss: op.issuer,
        aud: "acme-api",
        exp: introspected.iat! + 3600,
        iat: expect.any(Number),
        jti: expect.any(String),
        auth_time: tokens.claims()!.auth_time,
        amr: ["password"],
        acr: tokens.claims()!.acr,
      });

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.access_token).toMatch(shape);
      expect(await oidc.fetchUserInfo(config, refreshed.access_token, "E10001")).toMatchObject({ sub: "E10001" });

      await oidc.tokenRevocation(config, refreshed.access_token, { token_type_hint: "access_token" });
      expect(await oidc.tokenIntrospection(api, refreshed.access_token)).toEqual({ active: false });
      await expect(oidc.fetchUserInfo(config, refreshed.access_token, "E10001")).rejects.toMatchObject({ status: 401 });
      // Revoking one access token leaves the others of the grant alone.
      expect((await oidc.tokenIntrospection(api, tokens.access_token)).active).toBe(true);
    },
  );
});
