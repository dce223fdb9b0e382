/** Whether a ceiling's token response is like the provider's (bench/token-claims.ts). */
import { describe, expect, it } from "vitest";
import { tokenDifferences, tokenFormatOf } from "../../bench/token-claims.ts";

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (header: object, claims: object) => `${encode(header)}.${encode(claims)}.signature`;

const CLAIMS = {
  iss: "http://localhost:3000",
  sub: "demo-service",
  aud: "acme-api",
  exp: 4_600,
  iat: 1_000,
  jti: "a",
  client_id: "demo-service",
  scope: "acme",
};
const HEADER = { alg: "RS256", kid: "provider-key-001", typ: "at+jwt" };
const response = (header: object, claims: object, extra: object = {}) => ({
  access_token: jwt(header, claims),
  token_type: "Bearer",
  expires_in: 3600,
  ...extra,
});

describe("tokenDifferences", () => {
  it("finds none when only the per-token values differ (kid, jti, times)", () => {
    const ceiling = response({ ...HEADER, kid: "ceiling-key-0001" }, { ...CLAIMS, jti: "b", iat: 2_000, exp: 5_600 });
    expect(tokenDifferences(response(HEADER, CLAIMS), ceiling)).toEqual([]);
  });

  it("names claims the ceiling leaves out or adds", () => {
    const { scope: _scope, ...withoutScope } = CLAIMS;
    expect(tokenDifferences(response(HEADER, CLAIMS), response(HEADER, { ...withoutScope, foo: 1 }))).toEqual([
      "access_token claims: lacks scope; adds foo",
    ]);
  });

  it("names a different token type, audience or lifetime", () => {
    const ceiling = response({ ...HEADER, typ: "JWT" }, { ...CLAIMS, aud: ["acme-api", "x"], exp: 1_600 });
    expect(tokenDifferences(response(HEADER, CLAIMS), ceiling)).toEqual([
      "access_token header typ: JWT, the provider's at+jwt",
      'access_token aud: ["acme-api","x"], the provider\'s "acme-api"',
      "access_token lifetime: 600 s, the provider's 3600 s",
    ]);
  });

  it("names response members the ceiling leaves out, such as an ID token", () => {
    const provider = response(HEADER, CLAIMS, { id_token: jwt({ alg: "RS256", typ: "JWT" }, { sub: "E10001" }) });
    expect(tokenDifferences(provider, response(HEADER, CLAIMS))).toEqual(["response members: lacks id_token"]);
  });

  it("compares no claims of two opaque access tokens, and names a JWT where the other side has an opaque one", () => {
    const opaque = { access_token: "3q2-7wXyZ_opaque-handle-of-43-characters-abc", token_type: "Bearer", expires_in: 3600 };
    expect(tokenDifferences(opaque, { ...opaque, access_token: "another-handle" })).toEqual([]);
    expect(tokenDifferences(opaque, response(HEADER, CLAIMS))).toEqual(["access_token: a JWT, the provider's an opaque handle"]);
  });
});

describe("tokenFormatOf", () => {
  it("tells a JWT from a reference handle", () => {
    expect(tokenFormatOf(jwt(HEADER, CLAIMS))).toBe("jwt");
    expect(tokenFormatOf("3q2-7wXyZ_opaque-handle")).toBe("reference");
    // Dots alone do not make a JWT: its header must be JSON with an alg.
    expect(tokenFormatOf("a.b.c")).toBe("reference");
  });
});
