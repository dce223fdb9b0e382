/**
 * client_credentials at POST /connect/token: the spec's scope rules 2 and 4, the response shape, and
 * the RFC 9068 access token a resource server verifies against the JWKS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import {
  appendTo,
  clientCredentialsToken,
  clientEntry,
  expectOAuthError,
  requestClientCredentials,
  SERVICE,
  verifyWithJwks,
} from "./helpers.ts";

// A client with many API scopes, so that scope subsets are worth generating; acme.admin is declared but not allowed to it.
const EXTRA_SCOPES = ["acme.s1", "acme.s2", "acme.s3", "acme.s4"];
const MULTI = { id: "multi-service", secret: "multi-service-secret" } as const;
const MULTI_ALLOWED = ["acme", "acme.api.msg", ...EXTRA_SCOPES];

let p: TestProvider;

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "scopes.yaml": appendTo(
        "api_resources.0.scopes",
        [...EXTRA_SCOPES, "acme.admin"].map((name) => ({ name })),
      ),
      "clients.yaml": appendTo("clients", [clientEntry(MULTI.id, MULTI.secret, ["client_credentials"], MULTI_ALLOWED)]),
    },
  });
});
afterAll(() => p?.close());

const scopeSet = (scope: unknown) => new Set(String(scope).split(" "));

describe("scope rules", () => {
  it("grants every API scope of the client when scope is omitted (rule 2)", async () => {
    const res = await requestClientCredentials(p);
    expect(res.status, res.text).toBe(200);
    expect(scopeSet(res.json!.scope)).toEqual(new Set(["acme", "acme.api.msg"]));
  });

  it("grants exactly a requested subset", async () => {
    const res = await requestClientCredentials(p, SERVICE, "acme.api.msg");
    expect(res.status, res.text).toBe(200);
    expect(res.json!.scope).toBe("acme.api.msg");
  });

  it.each(["openid", "profile", "email", "acme openid", "profile acme.api.msg"])(
    "rejects the ID scope in %j with invalid_scope (rule 4)",
    async (scope) => {
      const res = await requestClientCredentials(p, SERVICE, scope);
      expectOAuthError(res, 400, "invalid_scope");
      expect(res.json!.error_description).toMatch(/is an ID scope; client_credentials takes API scopes only$/);
    },
  );

  it.each(["offline_access", "acme offline_access"])(
    "rejects %j with invalid_scope: no refresh token without a user (offline_access is no ID scope)",
    async (scope) => {
      const res = await requestClientCredentials(p, SERVICE, scope);
      expectOAuthError(res, 400, "invalid_scope");
      expect(res.json!.error_description).toBe("'offline_access' asks for a refresh token, which client_credentials does not issue");
    },
  );

  it.each(["acme.admin", "no-such-scope", "acme no-such-scope"])(
    "rejects %j, not allowed to the client, with invalid_scope",
    async (scope) => {
      expectOAuthError(await requestClientCredentials(p, SERVICE, scope), 400, "invalid_scope");
    },
  );

  it("grants any non-empty subset of the allowed API scopes exactly as requested", async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(MULTI_ALLOWED, { minLength: 1 }), async (requested) => {
        const res = await requestClientCredentials(p, MULTI, requested.join(" "));
        expect(res.status, res.text).toBe(200);
        expect(scopeSet(res.json!.scope)).toEqual(new Set(requested));
        const { payload } = await verifyWithJwks(p, res.json!.access_token as string);
        expect(scopeSet(payload.scope)).toEqual(new Set(requested));
      }),
      { numRuns: 25 },
    );
  });

  it("refuses any request containing a scope outside the allowed set with invalid_scope", async () => {
    const outside = fc.oneof(
      fc.constantFrom("acme.admin", "openid", "profile", "email", "offline_access"),
      fc.stringMatching(/^[a-z][a-z0-9._:-]{0,15}$/).filter((s) => !MULTI_ALLOWED.includes(s)),
    );
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(MULTI_ALLOWED), outside, fc.nat(), async (allowed, extra, at) => {
        const requested = [...allowed];
        requested.splice(at % (requested.length + 1), 0, extra);
        const res = await requestClientCredentials(p, MULTI, requested.join(" "));
        expectOAuthError(res, 400, "invalid_scope");
      }),
      { numRuns: 25 },
    );
  });
});

describe("token response", () => {
  it("returns access_token, token_type Bearer, expires_in 3600 and scope, and nothing else", async () => {
    const res = await requestClientCredentials(p);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json!).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(res.json).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(res.json).not.toHaveProperty("id_token");
    expect(res.json).not.toHaveProperty("refresh_token");
  });

  it("issues an access token that verifies against the JWKS with the RFC 9068 header and claims", async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await clientCredentialsToken(p);
    const after = Math.floor(Date.now() / 1000);
    const { payload, protectedHeader } = await verifyWithJwks(p, token);

    expect(protectedHeader).toEqual({ alg: "RS256", kid: expect.any(String), typ: "at+jwt" });
    expect(payload).toMatchObject({ iss: p.issuer, sub: SERVICE.id, aud: "acme-api", client_id: SERVICE.id });
    expect(scopeSet(payload.scope)).toEqual(new Set(["acme", "acme.api.msg"]));
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);
    expect(payload.exp).toBe(payload.iat! + 3600);
    expect(payload.jti).toEqual(expect.any(String));
  });

  it("gives every token its own jti", async () => {
    const tokens = await Promise.all(Array.from({ length: 5 }, () => clientCredentialsToken(p)));
    const jtis = await Promise.all(tokens.map(async (t) => (await verifyWithJwks(p, t)).payload.jti));
    expect(new Set(jtis).size).toBe(5);
  });
});
