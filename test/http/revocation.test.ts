/**
 * POST /connect/revocation (RFC 7009, SPEC "Revocation"): a client revokes its own access and refresh
 * tokens; anything else is left alone, and the answer is 200 either way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import {
  appendTo,
  clientCredentialsToken,
  clientEntry,
  expectOAuthError,
  introspect,
  LEGACY,
  requestPassword,
  REVOKE,
  revoke,
  send,
  SERVICE,
} from "./helpers.ts";

// demo-legacy with offline access, and a second such client, so refresh tokens can be issued by the password grant.
const LEGACY_TWO = { id: "legacy-two", secret: "legacy-two-secret" } as const;
const OFFLINE = {
  offline_access: true,
  grant_types: ["password", "refresh_token"],
  allowed_scopes: ["openid", "profile", "acme", "offline_access"],
};

let p: TestProvider;

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "clients.yaml": {
        "clients.3.offline_access": OFFLINE.offline_access,
        "clients.3.grant_types": OFFLINE.grant_types,
        "clients.3.allowed_scopes": OFFLINE.allowed_scopes,
        ...appendTo("clients", [
          clientEntry(LEGACY_TWO.id, LEGACY_TWO.secret, OFFLINE.grant_types, OFFLINE.allowed_scopes, { offline_access: true }),
        ]),
      },
    },
  });
});
afterAll(() => p?.close());

async function isActive(token: string): Promise<boolean> {
  const res = await introspect(p, token);
  expect(res.status, res.text).toBe(200);
  return res.json!.active === true;
}

/** A refresh token from the password grant with offline_access. */
async function refreshToken(client: { id: string; secret: string } = LEGACY): Promise<string> {
  const res = await requestPassword(p, "alice", "alice-password", { scope: "openid acme offline_access" }, client);
  expect(res.status, res.text).toBe(200);
  expect(res.json!.refresh_token).toEqual(expect.any(String));
  return res.json!.refresh_token as string;
}

/** RFC 7009 §2.2: 200, and nothing to cache. */
function expectRevocationOk(res: Awaited<ReturnType<typeof revoke>>) {
  expect(res.status, res.text).toBe(200);
  expect(res.text).toBe("");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe("access tokens", () => {
  it("revokes the client's own access token: 200, then introspection says inactive", async () => {
    const token = await clientCredentialsToken(p);
    expect(await isActive(token)).toBe(true);
    expectRevocationOk(await revoke(p, token, SERVICE));
    expect(await isActive(token)).toBe(false);
  });

  it("answers 200 but leaves another client's access token active", async () => {
    const res = await requestPassword(p, "alice", "alice-password", { scope: "acme" });
    const legacyToken = res.json!.access_token as string;
    expectRevocationOk(await revoke(p, legacyToken, SERVICE));
    expect(await isActive(legacyToken)).toBe(true);
  });

  it("revokes with an unknown token_type_hint as if there were none", async () => {
    const token = await clientCredentialsToken(p);
    expectRevocationOk(await revoke(p, token, SERVICE, "urn:example:mystery"));
    expect(await isActive(token)).toBe(false);
  });

  it("revokes an access token sent with the refresh_token hint", async () => {
    const token = await clientCredentialsToken(p);
    expectRevocationOk(await revoke(p, token, SERVICE, "refresh_token"));
    expect(await isActive(token)).toBe(false);
  });

  it("answers 200 to revoking an already revoked token", async () => {
    const token = await clientCredentialsToken(p);
    expectRevocationOk(await revoke(p, token, SERVICE));
    expectRevocationOk(await revoke(p, token, SERVICE));
  });
});

describe("refresh tokens", () => {
  it("revokes the client's own refresh token with token_type_hint=refresh_token", async () => {
    const token = await refreshToken();
    expect(await p.provider.refreshTokens.find(token)).toBeDefined();
    expectRevocationOk(await revoke(p, token, LEGACY, "refresh_token"));
    expect(await p.provider.refreshTokens.find(token)).toBeUndefined();
  });

  it("revokes the client's own refresh token without a hint", async () => {
    const token = await refreshToken();
    expectRevocationOk(await revoke(p, token, LEGACY));
    expect(await p.provider.refreshTokens.find(token)).toBeUndefined();
  });

  it("revokes a refresh token sent with the access_token hint", async () => {
    const token = await refreshToken();
    expectRevocationOk(await revoke(p, token, LEGACY, "access_token"));
    expect(await p.provider.refreshTokens.find(token)).toBeUndefined();
  });

  it("revokes the access token issued together with the refresh token (RFC 7009 §2.1)", async () => {
    const res = await requestPassword(p, "alice", "alice-password", { scope: "openid acme offline_access" });
    const { access_token, refresh_token } = res.json as { access_token: string; refresh_token: string };
    expect(await isActive(access_token)).toBe(true);
    expectRevocationOk(await revoke(p, refresh_token, LEGACY, "refresh_token"));
    expect(await isActive(access_token)).toBe(false);
  });

  it("answers 200 but leaves another client's refresh token alive", async () => {
    const token = await refreshToken(LEGACY_TWO);
    expectRevocationOk(await revoke(p, token, LEGACY, "refresh_token"));
    expect(await p.provider.refreshTokens.find(token)).toMatchObject({ clientId: LEGACY_TWO.id, sub: "E10001" });
  });
});

describe("errors", () => {
  it.each(["garbage", "a.b.c", "x".repeat(4096)])("answers 200 to an unknown token (%#)", async (token) => {
    expectRevocationOk(await revoke(p, token, SERVICE));
  });

  it("answers a missing token with 400 invalid_request", async () => {
    expectOAuthError(await postForm(p.url + REVOKE, {}, { authorization: basic(SERVICE.id, SERVICE.secret) }), 400, "invalid_request");
  });

  it("answers a wrong secret with 401 invalid_client and a Basic challenge, and revokes nothing", async () => {
    const token = await clientCredentialsToken(p);
    const res = await revoke(p, token, { id: SERVICE.id, secret: "wrong" });
    expectOAuthError(res, 401, "invalid_client");
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await isActive(token)).toBe(true);
  });

  it("answers an unknown client with 401 invalid_client", async () => {
    expectOAuthError(await revoke(p, "garbage", { id: "no-such-client", secret: "x" }), 401, "invalid_client");
  });

  it("answers no client authentication at all with 401 invalid_client", async () => {
    expectOAuthError(await postForm(p.url + REVOKE, { token: "garbage" }), 401, "invalid_client");
  });

  it("answers GET with 405 and Allow: POST", async () => {
    const res = await send(p.url + REVOKE);
    expectOAuthError(res, 405, "invalid_request");
    expect(res.headers.get("allow")).toBe("POST");
  });
});
