/**
 * requireBearer (RFC 6750) in front of a resource server of our own, with tokens from a real provider:
 * the challenge, invalid_token and insufficient_scope answers, and the claims the handler sees.
 */
import { sign, type KeyObject } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBearer, bearerClaims } from "../../src/http/middleware/require-bearer.ts";
import { errorHandler } from "../../src/http/middleware/error-handler.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { codeTokens } from "../support/code-grant.ts";
import {
  appendTo,
  clientCredentialsToken,
  clientEntry,
  decodeJwt,
  expectNoInternals,
  revoke,
  send,
  SERVICE,
  sleep,
  type FormResponse,
} from "./helpers.ts";

const SHORT = { id: "short-service", secret: "short-service-secret" } as const;
const OPAQUE = { id: "opaque-service", secret: "opaque-service-secret" } as const;
/** Services that chose PS256 and ES256 access tokens (clients.yaml access_token_signed_response_alg). */
const CHOSEN_ALG = [
  { alg: "PS256", client: { id: "ps-service", secret: "ps-service-secret" } },
  { alg: "ES256", client: { id: "es-service", secret: "es-service-secret" } },
] as const;

let p: TestProvider;
let server: Server;
let api: string;

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "clients.yaml": appendTo("clients", [
        clientEntry(SHORT.id, SHORT.secret, ["client_credentials"], ["acme.api.msg"], { lifetimes: { access_token: "1s" } }),
        clientEntry(OPAQUE.id, OPAQUE.secret, ["client_credentials"], ["acme", "acme.api.msg"], { access_token_format: "reference" }),
        ...CHOSEN_ALG.map(({ alg, client }) =>
          clientEntry(client.id, client.secret, ["client_credentials"], ["acme.api.msg"], { access_token_signed_response_alg: alg }),
        ),
      ]),
    },
  });
  const app = express();
  app.get("/messages", requireBearer(p.provider.accessTokenVerifier, { scopes: ["acme.api.msg"] }), (_req, res) => {
    res.json({ claims: bearerClaims(res) });
  });
  // RFC 9470: a route that wants a two-factor login, and one that wants a login of the last five minutes.
  app.get("/payroll", requireBearer(p.provider.accessTokenVerifier, { acrValues: ["2fa"] }), (_req, res) => res.json({ ok: true }));
  app.get("/recent", requireBearer(p.provider.accessTokenVerifier, { maxAge: 300 }), (_req, res) => res.json({ ok: true }));
  app.get("/userinfo-like", requireBearer(p.provider.accessTokenVerifier, { audience: `${p.issuer}/connect/userinfo` }), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler(p.provider.logger));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await p?.close();
});

const call = (authorization?: string, path = "") => send(api + path, { headers: authorization === undefined ? {} : { authorization } });

/** 401 invalid_token, in the body and in the challenge. */
function expectInvalidToken(res: FormResponse) {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status: 401, error: "invalid_token" });
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]+", error="invalid_token"/);
  expectNoInternals(res.text);
}

describe("no token", () => {
  it("answers 401 with a bare Bearer challenge that names the realm and no error", async () => {
    const res = await call();
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer realm="[^"]+"$/);
    expect(challenge).not.toContain("error=");
  });

  it("treats a Basic header as no token", async () => {
    const res = await call(`Basic ${Buffer.from("demo-service:demo-service-secret").toString("base64")}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]+"$/);
  });

  it("does not accept a token in the query string", async () => {
    const token = await clientCredentialsToken(p, SERVICE, "acme.api.msg");
    const res = await call(undefined, `?access_token=${token}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).not.toContain("error=");
  });
});

describe("bad tokens", () => {
  it.each(["garbage", "a.b.c", "eyJhbGciOiJub25lIn0.e30."])("answers the garbage token %j with 401 invalid_token", async (token) => {
    expectInvalidToken(await call(`Bearer ${token}`));
  });

  it("answers a revoked token with 401 invalid_token", async () => {
    const token = await clientCredentialsToken(p, SERVICE, "acme.api.msg");
    expect((await call(`Bearer ${token}`)).status).toBe(200);
    expect((await revoke(p, token, SERVICE)).status).toBe(200);
    expectInvalidToken(await call(`Bearer ${token}`));
  });

  it("answers an expired token with 401 invalid_token", async () => {
    const token = await clientCredentialsToken(p, SHORT);
    await sleep(2100);
    expectInvalidToken(await call(`Bearer ${token}`));
  });

  it("answers a provider-signed token typed JWT instead of at+jwt with 401 invalid_token", async () => {
    const { payload } = decodeJwt(await clientCredentialsToken(p, SERVICE, "acme.api.msg"));
    expectInvalidToken(await call(`Bearer ${p.provider.signer.sign(payload, "JWT")}`));
  });
});

describe("signing algorithms", () => {
  it.each(CHOSEN_ALG)("lets a $alg token of a client that chose $alg through", async ({ alg, client }) => {
    const token = await clientCredentialsToken(p, client, "acme.api.msg");
    expect(decodeJwt(token).header).toMatchObject({ alg, kid: p.provider.keys.keys.signingKey(alg).kid });
    const res = await call(`Bearer ${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json!.claims).toMatchObject({ client_id: client.id, scope: "acme.api.msg" });
  });

  it("refuses a token signed by our own PS256 key but headed RS256, and an ES256 token relabelled RS256", async () => {
    const { header, payload } = decodeJwt(await clientCredentialsToken(p, CHOSEN_ALG[0].client, "acme.api.msg"));
    // A real PKCS#1 v1.5 signature by the PS256 key: it would verify as RS256 if the header chose the algorithm.
    const psKey = (p.provider.keys.keys.signingKey("PS256").input as { key: KeyObject }).key;
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const input = `${encode({ ...header, alg: "RS256" })}.${encode(payload)}`;
    const relabelled = `${input}.${sign("sha256", Buffer.from(input), psKey).toString("base64url")}`;
    const res = await call(`Bearer ${relabelled}`);
    expectInvalidToken(res);
    expect(res.json!.error_description).toBe("the token algorithm is not accepted");

    const es = await clientCredentialsToken(p, CHOSEN_ALG[1].client, "acme.api.msg");
    const [, body, signature] = es.split(".");
    const esHeader = decodeJwt(es).header;
    const swapped = await call(`Bearer ${encode({ ...esHeader, alg: "RS256" })}.${body}.${signature}`);
    expectInvalidToken(swapped);
    expect(swapped.json!.error_description).toBe("the token algorithm is not accepted");
  });
});

describe("scopes", () => {
  it("answers a valid token without the required scope with 403 insufficient_scope naming the scope", async () => {
    const token = await clientCredentialsToken(p, SERVICE, "acme");
    const res = await call(`Bearer ${token}`);
    expect({ status: res.status, error: res.json?.error }).toEqual({ status: 403, error: "insufficient_scope" });
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer realm="[^"]+"/);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="acme.api.msg"');
  });

  it("lets a token with the required scope through and hands the handler its verified claims", async () => {
    const token = await clientCredentialsToken(p, SERVICE, "acme acme.api.msg");
    const res = await call(`Bearer ${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json!.claims).toEqual(decodeJwt(token).payload);
    expect(res.json!.claims).toMatchObject({ sub: SERVICE.id, client_id: SERVICE.id, iss: p.issuer, scope: "acme acme.api.msg" });
  });

  it("answers a valid token meant for another audience with 401 invalid_token", async () => {
    const apiToken = await clientCredentialsToken(p, SERVICE); // aud: acme-api
    const res = await send(api.replace("/messages", "/userinfo-like"), { headers: { authorization: `Bearer ${apiToken}` } });
    expect(res.status).toBe(401);
    expect(res.json?.error).toBe("invalid_token");
    const userToken = (
      await postForm(
        `${p.url}/connect/token`,
        { grant_type: "password", username: "alice", password: "alice-password", scope: "openid" },
        { authorization: basic("demo-legacy", "demo-legacy-secret") },
      )
    ).json!.access_token as string;
    expect((await send(api.replace("/messages", "/userinfo-like"), { headers: { authorization: `Bearer ${userToken}` } })).status).toBe(
      200,
    );
  });

  it("takes a reference token like a JWT: its claims through, a missing scope 403, and once revoked 401", async () => {
    const token = await clientCredentialsToken(p, OPAQUE, "acme acme.api.msg");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await call(`Bearer ${token}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json!.claims).toMatchObject({
      sub: OPAQUE.id,
      client_id: OPAQUE.id,
      iss: p.issuer,
      aud: "acme-api",
      scope: "acme acme.api.msg",
    });
    expect((await call(`Bearer ${await clientCredentialsToken(p, OPAQUE, "acme")}`)).status).toBe(403);
    expect((await revoke(p, token, OPAQUE)).status).toBe(200);
    expectInvalidToken(await call(`Bearer ${token}`));
    expectInvalidToken(await call(`Bearer ${"A".repeat(43)}`));
  });

  it("accepts the scheme name in any case", async () => {
    const token = await clientCredentialsToken(p, SERVICE, "acme.api.msg");
    expect((await call(`bearer ${token}`)).status).toBe(200);
  });
});

describe("step-up (RFC 9470)", () => {
  const at = (path: string) => api.replace("/messages", path);
  const userToken = async (acr: string, secondsAgo: number) =>
    (await codeTokens(p, { acr, authTime: Math.floor(Date.now() / 1000) - secondsAgo, scopes: ["openid", "acme"] })).access_token;

  it("sends a one-factor token back with insufficient_user_authentication and the acr_values the route needs", async () => {
    const res = await send(at("/payroll"), { headers: { authorization: `Bearer ${await userToken("1fa", 5)}` } });
    expect({ status: res.status, error: res.json?.error }).toEqual({ status: 401, error: "insufficient_user_authentication" });
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toMatch(
      /^Bearer realm="[^"]+", error="insufficient_user_authentication", error_description="[^"]+", acr_values="2fa"$/,
    );
    expectNoInternals(res.text);
  });

  it("lets a two-factor token through, and refuses a client's own token, which names no user authentication", async () => {
    expect((await send(at("/payroll"), { headers: { authorization: `Bearer ${await userToken("2fa", 5)}` } })).status).toBe(200);
    const service = await clientCredentialsToken(p, SERVICE, "acme");
    expect((await send(at("/payroll"), { headers: { authorization: `Bearer ${service}` } })).json?.error).toBe(
      "insufficient_user_authentication",
    );
  });

  it("sends an old authentication back with max_age, and lets a recent one through", async () => {
    const old = await send(at("/recent"), { headers: { authorization: `Bearer ${await userToken("1fa", 600)}` } });
    expect(old.status).toBe(401);
    expect(old.headers.get("www-authenticate")).toMatch(
      /error="insufficient_user_authentication", error_description="[^"]+", max_age=300$/,
    );
    expect((await send(at("/recent"), { headers: { authorization: `Bearer ${await userToken("1fa", 10)}` } })).status).toBe(200);
  });

  it("still answers a bad token with invalid_token, not a step-up", async () => {
    expectInvalidToken(await send(at("/payroll"), { headers: { authorization: "Bearer a.b.c" } }));
  });
});
