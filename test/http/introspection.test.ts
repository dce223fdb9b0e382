/**
 * POST /connect/introspect (RFC 7662, SPEC "Introspection"): only an API resource with its ApiSecret may
 * ask, and any token that is not a live access token for that resource is exactly {"active":false}.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateKeyPair, SignJWT } from "jose";
import { hashSecret } from "../../src/crypto/secret-hash.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import {
  ACME_API,
  appendTo,
  clientCredentialsToken,
  clientEntry,
  decodeJwt,
  expectOAuthError,
  introspect,
  INTROSPECT,
  requestPassword,
  revoke,
  SERVICE,
  sleep,
} from "./helpers.ts";

const OTHER_API = { id: "other-api", secret: "other-api-secret" } as const;
const OTHER = { id: "other-service", secret: "other-service-secret" } as const;
const MIXED = { id: "mixed-service", secret: "mixed-service-secret" } as const;
const SHORT = { id: "short-service", secret: "short-service-secret" } as const;
const INACTIVE = { active: false };

let p: TestProvider;
let url: string;
let token: string;

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "scopes.yaml": appendTo("api_resources", [
        { name: OTHER_API.id, api_secret_hash: hashSecret(OTHER_API.secret), scopes: [{ name: "other.read" }] },
        { name: "secretless-api", scopes: [{ name: "secretless.read" }] },
      ]),
      "clients.yaml": appendTo("clients", [
        clientEntry(OTHER.id, OTHER.secret, ["client_credentials"], ["other.read"]),
        clientEntry(MIXED.id, MIXED.secret, ["client_credentials"], ["acme", "other.read"]),
        clientEntry(SHORT.id, SHORT.secret, ["client_credentials"], ["acme"], { lifetimes: { access_token: "1s" } }),
      ]),
    },
  });
  url = p.url + INTROSPECT;
  token = await clientCredentialsToken(p);
});
afterAll(() => p?.close());

/** Asserts the RFC 7662 inactive answer: exactly {"active":false}, 200, not cached. */
async function expectInactive(candidate: string, resource = ACME_API) {
  const res = await introspect(p, candidate, resource);
  expect({ status: res.status, body: res.json }, res.text).toEqual({ status: 200, body: INACTIVE });
  expect(res.headers.get("cache-control")).toBe("no-store");
}

const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

describe("caller authentication", () => {
  it("reports a live demo-service token as active to acme-api with Basic", async () => {
    const res = await introspect(p, token);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { payload } = decodeJwt(token);
    expect(res.json).toMatchObject({
      active: true,
      token_type: "Bearer",
      scope: "acme acme.api.msg",
      client_id: SERVICE.id,
      sub: SERVICE.id,
      iss: p.issuer,
      exp: payload.exp,
      iat: payload.iat,
    });
    expect(res.json!.exp).toBe((res.json!.iat as number) + 3600);
  });

  it("names only the calling resource as the audience, not the other resources the token serves", async () => {
    const userToken = (await requestPassword(p, "alice", "alice-password", { scope: "openid acme" })).json!.access_token as string;
    expect(decodeJwt(userToken).payload.aud).toEqual(["acme-api", `${p.issuer}/connect/userinfo`]);
    expect((await introspect(p, userToken)).json).toMatchObject({ active: true, aud: "acme-api" });
  });

  it("accepts the resource's credentials as client_id and client_secret in the form", async () => {
    const res = await postForm(url, { token, client_id: ACME_API.id, client_secret: ACME_API.secret });
    expect(res.status, res.text).toBe(200);
    expect(res.json!.active).toBe(true);
  });

  it("answers an unauthenticated caller with 401 invalid_client", async () => {
    expectOAuthError(await postForm(url, { token }), 401, "invalid_client");
  });

  it("answers a wrong ApiSecret with 401 invalid_client and a Basic challenge", async () => {
    const res = await introspect(p, token, { id: ACME_API.id, secret: "wrong" });
    expectOAuthError(res, 401, "invalid_client");
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("answers a client's credentials (not an API resource) with 401 invalid_client", async () => {
    expectOAuthError(await introspect(p, token, SERVICE), 401, "invalid_client");
  });

  it("answers an API resource without an ApiSecret with 401 invalid_client", async () => {
    expectOAuthError(await introspect(p, token, { id: "secretless-api", secret: "" }), 401, "invalid_client");
    expectOAuthError(await introspect(p, token, { id: "secretless-api", secret: "anything" }), 401, "invalid_client");
  });

  it("answers a missing token with 400 invalid_request", async () => {
    expectOAuthError(await postForm(url, {}, { authorization: basic(ACME_API.id, ACME_API.secret) }), 400, "invalid_request");
  });
});

describe("inactive tokens are exactly {active:false}", () => {
  it("reports an expired token as inactive", async () => {
    const short = await clientCredentialsToken(p, SHORT);
    await sleep(2100);
    await expectInactive(short);
  });

  it("reports a revoked token as inactive", async () => {
    const doomed = await clientCredentialsToken(p);
    expect((await revoke(p, doomed, SERVICE)).status).toBe(200);
    await expectInactive(doomed);
  });

  it.each(["not-a-jwt", "a.b.c", "a.b", "....", "eyJhbGciOiJSUzI1NiJ9.e30.", "%00"])(
    "reports the malformed token %j as inactive",
    async (bad) => {
      await expectInactive(bad);
    },
  );

  it("reports a token signed by another RSA key with the same kid and claims as inactive", async () => {
    const { header, payload } = decodeJwt(token);
    const { privateKey } = await generateKeyPair("RS256");
    const forged = await new SignJWT(payload)
      .setProtectedHeader({ alg: "RS256", kid: header.kid as string, typ: "at+jwt" })
      .sign(privateKey);
    await expectInactive(forged);
  });

  it("reports a token signed by another RSA key under an unknown kid as inactive", async () => {
    const { payload } = decodeJwt(token);
    const { privateKey } = await generateKeyPair("RS256");
    await expectInactive(
      await new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: "someone-else", typ: "at+jwt" }).sign(privateKey),
    );
  });

  it("reports an alg none token as inactive", async () => {
    const { header, payload } = decodeJwt(token);
    await expectInactive(`${b64({ alg: "none", kid: header.kid, typ: "at+jwt" })}.${b64(payload)}.`);
  });

  it("reports a token with typ JWT (an ID-token type) signed by the provider's key as inactive", async () => {
    await expectInactive(p.provider.signer.sign(decodeJwt(token).payload, "JWT"));
  });

  it("reports a token of another issuer signed by the provider's key as inactive", async () => {
    await expectInactive(p.provider.signer.sign({ ...decodeJwt(token).payload, iss: "https://elsewhere.example" }, "at+jwt"));
  });

  it("reports a token whose scopes belong to no scope of the resource as inactive", async () => {
    const foreign = await clientCredentialsToken(p, OTHER);
    await expectInactive(foreign);
    const own = await introspect(p, foreign, OTHER_API);
    expect(own.json).toMatchObject({ active: true, scope: "other.read", client_id: OTHER.id });
  });

  it("shows a resource only its own scopes of a token that spans two resources", async () => {
    const mixed = await clientCredentialsToken(p, MIXED);
    expect((await introspect(p, mixed)).json).toMatchObject({ active: true, scope: "acme" });
    expect((await introspect(p, mixed, OTHER_API)).json).toMatchObject({ active: true, scope: "other.read" });
  });

  it("answers any other string or JWT-shaped token with exactly {active:false}, never an error", async () => {
    const jwtShaped = fc
      .tuple(fc.jsonValue(), fc.jsonValue(), fc.string())
      .map(([header, payload, signature]) => `${b64(header)}.${b64(payload)}.${b64(signature)}`);
    const headerShaped = fc
      .record(
        {
          alg: fc.constantFrom("RS256", "none", "HS256", "ES256"),
          kid: fc.oneof(fc.string(), fc.integer(), fc.constant(decodeJwt(token).header.kid)),
          typ: fc.constantFrom("at+jwt", "JWT"),
        },
        { requiredKeys: [] },
      )
      .map((header) => `${b64(header)}.${token.split(".")[1]}.${token.split(".")[2]}`);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ minLength: 1 }), jwtShaped, headerShaped), async (candidate) => {
        if (candidate === token) return;
        await expectInactive(candidate);
      }),
      { numRuns: 25 },
    );
  });
});
