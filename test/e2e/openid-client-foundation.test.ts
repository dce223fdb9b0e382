import * as oidc from "openid-client";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { availableBackends } from "../support/backends.ts";

/**
 * The non-interactive endpoints driven by openid-client v6, a certified relying-party library:
 * if it accepts our discovery, tokens and answers, so will other conforming clients.
 */
let op: TestProvider;
const insecure = { execute: [oidc.allowInsecureRequests] };

async function discover(clientId: string, auth: oidc.ClientAuth) {
  return oidc.discovery(new URL(op.issuer), clientId, undefined, auth, insecure);
}

describe.each(availableBackends())("foundation endpoints with openid-client on the $name store", ({ url: storeUrl }) => {
  beforeAll(async () => {
    op = await startTestProvider({ storeUrl });
  });
  afterAll(() => op.close());

  it("discovers the provider and its endpoints", async () => {
    const config = await discover("demo-service", oidc.ClientSecretPost("demo-service-secret"));
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(op.issuer);
    expect(meta.token_endpoint).toBe(`${op.issuer}/connect/token`);
    expect(meta.jwks_uri).toBe(`${op.issuer}/.well-known/openid-configuration/jwks`);
    expect(meta.introspection_endpoint).toBe(`${op.issuer}/connect/introspect`);
    expect(meta.revocation_endpoint).toBe(`${op.issuer}/connect/revocation`);
  });

  it("gets a client_credentials token with client_secret_post and with client_secret_basic", async () => {
    for (const auth of [oidc.ClientSecretPost("demo-service-secret"), oidc.ClientSecretBasic("demo-service-secret")]) {
      const config = await discover("demo-service", auth);
      const tokens = await oidc.clientCredentialsGrant(config, { scope: "acme" });
      expect(tokens.token_type).toBe("bearer");
      expect(tokens.scope).toBe("acme");
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens.id_token).toBeUndefined();
    }
  });

  it("issues access tokens that verify against the JWKS with jose's remote key set", async () => {
    const config = await discover("demo-service", oidc.ClientSecretPost("demo-service-secret"));
    const { access_token } = await oidc.clientCredentialsGrant(config);
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload, protectedHeader } = await jwtVerify(access_token, jwks, {
      issuer: op.issuer,
      audience: "acme-api",
      algorithms: ["RS256"],
      typ: "at+jwt",
    });
    expect(protectedHeader.kid).toBeTypeOf("string");
    expect(payload).toMatchObject({ sub: "demo-service", client_id: "demo-service", scope: "acme acme.api.msg" });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it("introspects a token as the API resource, then revokes it and sees it inactive", async () => {
    const service = await discover("demo-service", oidc.ClientSecretBasic("demo-service-secret"));
    const api = await discover("acme-api", oidc.ClientSecretBasic("acme-api-secret"));
    const { access_token } = await oidc.clientCredentialsGrant(service);

    const active = await oidc.tokenIntrospection(api, access_token);
    expect(active).toMatchObject({
      active: true,
      client_id: "demo-service",
      sub: "demo-service",
      scope: "acme acme.api.msg",
      iss: op.issuer,
    });

    await oidc.tokenRevocation(service, access_token, { token_type_hint: "access_token" });
    expect(await oidc.tokenIntrospection(api, access_token)).toEqual({ active: false });
  });

  it("runs the password grant for the client that enables it", async () => {
    const legacy = await discover("demo-legacy", oidc.ClientSecretPost("demo-legacy-secret"));
    const tokens = await oidc.genericGrantRequest(legacy, "password", {
      username: "alice",
      password: "alice-password",
      scope: "openid acme",
    });
    const api = await discover("acme-api", oidc.ClientSecretPost("acme-api-secret"));
    expect(await oidc.tokenIntrospection(api, tokens.access_token)).toMatchObject({
      active: true,
      sub: "E10001",
      amr: ["password"],
      scope: "acme",
    });
  });

  it("surfaces invalid_client to the library as a response error", async () => {
    const config = await discover("demo-service", oidc.ClientSecretPost("wrong-secret"));
    await expect(oidc.clientCredentialsGrant(config)).rejects.toMatchObject({ error: "invalid_client", status: 401 });
  });

  it("surfaces invalid_scope for an ID scope in client_credentials", async () => {
    const config = await discover("demo-service", oidc.ClientSecretPost("demo-service-secret"));
    await expect(oidc.clientCredentialsGrant(config, { scope: "openid acme" })).rejects.toMatchObject({
      error: "invalid_scope",
      status: 400,
    });
  });
});
