/**
 * The refresh_token grant at POST /connect/token (RFC 6749 §6, RFC 9700 §4.14.2, OIDC Core §12):
 * rotation on every use, reuse revokes the whole family, scope only narrows, tokens stay with their client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeTokens, expectedAtHash, refresh, verifyIdToken, WEB, WEB_REDIRECT } from "../support/code-grant.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { randomToken } from "../../src/crypto/random-token.ts";
import { plannedAccessToken } from "../../src/http/grants/planned-access-token.ts";
import type { RefreshGrant } from "../../src/oauth/refresh-tokens.ts";
import { appendTo, clientEntry, expectOAuthError, introspect, revoke, sleep, verifyWithJwks } from "./helpers.ts";

// A second client with offline access, to present demo-web's tokens as someone else.
const OTHER = { id: "web-other", secret: "web-other-secret" } as const;

let p: TestProvider;

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "clients.yaml": appendTo("clients", [
        clientEntry(OTHER.id, OTHER.secret, ["authorization_code", "refresh_token"], ["openid", "profile", "acme", "offline_access"], {
          redirect_uris: [WEB_REDIRECT],
          offline_access: true,
        }),
      ]),
    },
  });
});
afterAll(() => p?.close());

interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
  scope: string;
}

const AUTH_TIME = Math.floor(Date.now() / 1000) - 60;

/** Tokens from a code redeemed by demo-web with openid profile acme offline_access. */
async function initialTokens(): Promise<Tokens> {
  return (await codeTokens(p, { authTime: AUTH_TIME })) as Tokens;
}

/** A family of demo-web's for E10001 written straight into the store (a password login unless `acr` is given). */
async function issueFamily(grant: Pick<RefreshGrant, "scopes" | "expiresAt" | "acr">): Promise<string> {
  const familyId = randomToken(16);
  const first = plannedAccessToken(p.provider.clock, 3600, familyId);
  return p.provider.refreshTokens.issue(
    { clientId: WEB.id, sub: "E10001", familyId, authTime: AUTH_TIME, amr: ["password"], ...grant },
    first,
  );
}

async function refreshed(token: string, form: Record<string, string> = {}): Promise<Tokens> {
  const res = await refresh(p, token, form);
  expect(res.status, res.text).toBe(200);
  return res.json as unknown as Tokens;
}

async function isActive(accessToken: string): Promise<boolean> {
  const res = await introspect(p, accessToken);
  expect(res.status, res.text).toBe(200);
  return res.json!.active === true;
}

describe("rotation", () => {
  it("answers with a new access token, a new refresh token and the grant's scope", async () => {
    const first = await initialTokens();
    const next = await refreshed(first.refresh_token);
    expect(next).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid profile acme offline_access" });
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(next.access_token).not.toBe(first.access_token);
    const { payload } = await verifyWithJwks(p, next.access_token);
    expect(payload).toMatchObject({
      sub: "E10001",
      client_id: WEB.id,
      auth_time: AUTH_TIME,
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
      sid: "sid-7f3a",
    });
  });

  it("returns a fresh ID token with the same sub, auth_time, amr, acr and sid, no nonce, and at_hash of the new access token", async () => {
    const first = await initialTokens();
    const next = await refreshed(first.refresh_token);
    const before = await verifyIdToken(p, first.id_token!);
    const after = await verifyIdToken(p, next.id_token!);
    for (const claim of ["sub", "auth_time", "amr", "acr", "sid", "aud", "iss"]) expect(after[claim], claim).toEqual(before[claim]);
    expect(after).not.toHaveProperty("nonce");
    expect(after.at_hash).toBe(expectedAtHash(next.access_token));
  });

  it("refuses the old refresh token once it has been rotated", async () => {
    const first = await initialTokens();
    await refreshed(first.refresh_token);
    expectOAuthError(await refresh(p, first.refresh_token), 400, "invalid_grant");
  });

  it("keeps rotating: each successor works once", async () => {
    let tokens = await initialTokens();
    for (let i = 0; i < 4; i++) tokens = await refreshed(tokens.refresh_token);
    expect(await isActive(tokens.access_token)).toBe(true);
  });
});

describe("reuse", () => {
  it("revokes the whole family: the newest refresh token and every access token the family issued", async () => {
    const t0 = await initialTokens();
    const t1 = await refreshed(t0.refresh_token);
    const t2 = await refreshed(t1.refresh_token);
    for (const t of [t0, t1, t2]) expect(await isActive(t.access_token)).toBe(true);

    expectOAuthError(await refresh(p, t0.refresh_token), 400, "invalid_grant");

    expectOAuthError(await refresh(p, t2.refresh_token), 400, "invalid_grant");
    for (const t of [t0, t1, t2]) expect(await isActive(t.access_token)).toBe(false);
  });

  it("ten parallel refreshes of one token: exactly one 200, the others invalid_grant, and the family revoked", async () => {
    const t0 = await initialTokens();
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(p, t0.refresh_token)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expectOAuthError(res, 400, "invalid_grant");
    // The nine were reuse: the strict choice revokes the family, the one success's tokens included.
    const winner = ok[0]!.json as unknown as Tokens;
    expectOAuthError(await refresh(p, winner.refresh_token), 400, "invalid_grant");
    expect(await isActive(winner.access_token)).toBe(false);
    expect(await isActive(t0.access_token)).toBe(false);
  });
});

describe("scope", () => {
  it("narrows the access token's scope, while the successor keeps the whole grant", async () => {
    const t0 = await initialTokens();
    const narrow = await refreshed(t0.refresh_token, { scope: "acme" });
    expect(narrow.scope).toBe("acme");
    expect(narrow).not.toHaveProperty("id_token");
    expect((await verifyWithJwks(p, narrow.access_token)).payload.scope).toBe("acme");
    const full = await refreshed(narrow.refresh_token);
    expect(full.scope).toBe("openid profile acme offline_access");
    expect(full.id_token).toEqual(expect.any(String));
  });

  it.each(["openid acme acme.api.msg", "email", "openid profile acme offline_access email"])(
    "answers widening scope %j with invalid_scope, and the token stays usable",
    async (scope) => {
      const t0 = await initialTokens();
      expectOAuthError(await refresh(p, t0.refresh_token, { scope }), 400, "invalid_scope");
      await refreshed(t0.refresh_token);
    },
  );

  it("cannot widen back what the code narrowed", async () => {
    const t0 = (await codeTokens(p, {}, { scope: "openid acme offline_access" })) as Tokens;
    expectOAuthError(await refresh(p, t0.refresh_token, { scope: "openid profile" }), 400, "invalid_scope");
    expect((await refreshed(t0.refresh_token)).scope).toBe("openid acme offline_access");
  });
});

describe("refusals", () => {
  it("answers a missing refresh_token with 400 invalid_request", async () => {
    const res = await refresh(p, "");
    expectOAuthError(res, 400, "invalid_request");
  });

  it("answers an unknown refresh token with 400 invalid_grant", async () => {
    expectOAuthError(await refresh(p, "no-such-refresh-token"), 400, "invalid_grant");
  });

  it("answers another client's refresh token with 400 invalid_grant, and the owner can still use it", async () => {
    const t0 = await initialTokens();
    expectOAuthError(await refresh(p, t0.refresh_token, {}, OTHER), 400, "invalid_grant");
    await refreshed(t0.refresh_token);
  });

  it("answers a token of an expired family with 400 invalid_grant", async () => {
    const token = await issueFamily({ scopes: ["openid", "offline_access"], expiresAt: Date.now() + 100, acr: "1fa" });
    await sleep(200);
    expectOAuthError(await refresh(p, token), 400, "invalid_grant");
  });

  it("answers a revoked refresh token with 400 invalid_grant", async () => {
    const t0 = await initialTokens();
    const res = await revoke(p, t0.refresh_token, WEB);
    expect(res.status).toBe(200);
    expectOAuthError(await refresh(p, t0.refresh_token), 400, "invalid_grant");
  });

  it("issues no ID token for a family without an OIDC login (password grant), even with openid", async () => {
    const token = await issueFamily({ scopes: ["openid", "acme", "offline_access"], expiresAt: Date.now() + 60_000 });
    const next = await refreshed(token);
    expect(next.scope).toBe("openid acme offline_access");
    expect(next).not.toHaveProperty("id_token");
  });
});
