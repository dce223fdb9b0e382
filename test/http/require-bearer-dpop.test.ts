/**
 * requireBearer with DPoP (RFC 9449 §7) in front of resource servers of our own, with tokens from a real
 * provider and openid-client's fetchProtectedResource: a bound token passes only with a proof by its key
 * for the API's own URL (also behind a proxy that strips a path prefix), and is refused as a bearer
 * token — also by a middleware that takes no DPoP tokens at all.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerClaims, requireBearer } from "../../src/http/middleware/require-bearer.ts";
import { errorHandler } from "../../src/http/middleware/error-handler.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { dpopKey, dpopProof, type DpopKey } from "../support/dpop-proof.ts";
import { clientCredentialsToken, expectNoInternals, send, SERVICE } from "./helpers.ts";

let p: TestProvider;
let server: Server;
let base: string;
let service: oidc.Configuration;
let key: DpopKey;
let token: string;

beforeAll(async () => {
  p = await startTestProvider();
  const app = express();
  // The API as a proxy publishes it: https://gw.example/api/... reaches this app as /proxied/...
  app.set("trust proxy", "loopback");
  const dpop = { proofs: p.provider.dpop };
  app.get("/messages", requireBearer(p.provider.accessTokenVerifier, { scopes: ["acme.api.msg"], dpop }), (_req, res) => {
    res.json({ claims: bearerClaims(res) });
  });
  app.get("/plain", requireBearer(p.provider.accessTokenVerifier), (_req, res) => res.json({ ok: true }));
  app.get("/proxied", requireBearer(p.provider.accessTokenVerifier, { dpop: { ...dpop, pathPrefix: "/api" } }), (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler(p.provider.logger));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = await oidc.discovery(new URL(p.issuer), SERVICE.id, undefined, oidc.ClientSecretBasic(SERVICE.secret), {
    execute: [oidc.allowInsecureRequests],
  });
  key = await dpopKey();
  token = (await oidc.clientCredentialsGrant(service, { scope: "acme acme.api.msg" }, { DPoP: oidc.getDPoPHandle(service, key) }))
    .access_token;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await p?.close();
});

const get = (path: string, headers: Record<string, string>) => send(base + path, { headers });
const proofFor = (path: string, claims: Record<string, unknown> = {}, by = key) =>
  dpopProof(by, { htm: "GET", htu: base + path, accessToken: token, ...claims });

function expectRefused(res: Awaited<ReturnType<typeof send>>, error: string) {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status: 401, error });
  expect(res.headers.get("www-authenticate")).toMatch(
    new RegExp(`^DPoP realm="portcullis", error="${error}".*algs="ES256 PS256 RS256 EdDSA"$`),
  );
  expectNoInternals(res.text);
}

describe("requireBearer with the dpop option", () => {
  it("lets openid-client's DPoP request through and hands the handler the bound claims", async () => {
    const res = await oidc.fetchProtectedResource(service, token, new URL(`${base}/messages`), "GET", undefined, undefined, {
      DPoP: oidc.getDPoPHandle(service, key),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { claims: Record<string, unknown> }).claims.cnf).toEqual({ jkt: key.jkt });
  });

  it("refuses the bound token as a bearer token", async () => {
    expectRefused(await get("/messages", { authorization: `Bearer ${token}` }), "invalid_token");
  });

  it("refuses a proof by another key", async () => {
    expectRefused(
      await get("/messages", { authorization: `DPoP ${token}`, dpop: await proofFor("/messages", {}, await dpopKey()) }),
      "invalid_token",
    );
  });

  it("refuses a missing proof, a proof without ath, for another URL, or replayed", async () => {
    expectRefused(await get("/messages", { authorization: `DPoP ${token}` }), "invalid_dpop_proof");
    expectRefused(
      await get("/messages", { authorization: `DPoP ${token}`, dpop: await proofFor("/messages", { accessToken: undefined }) }),
      "invalid_dpop_proof",
    );
    expectRefused(await get("/messages", { authorization: `DPoP ${token}`, dpop: await proofFor("/plain") }), "invalid_dpop_proof");
    const proof = await proofFor("/messages");
    expect((await get("/messages", { authorization: `DPoP ${token}`, dpop: proof })).status).toBe(200);
    expectRefused(await get("/messages", { authorization: `DPoP ${token}`, dpop: proof }), "invalid_dpop_proof");
  });

  it("still takes an unbound token as a bearer token", async () => {
    const bearer = await clientCredentialsToken(p, SERVICE, "acme.api.msg");
    expect((await get("/messages", { authorization: `Bearer ${bearer}` })).status).toBe(200);
  });

  it("checks htu against the URL the client called through a proxy: forwarded scheme and host, and the stripped prefix", async () => {
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "gw.example" };
    const published = await dpopProof(key, { htm: "GET", htu: "https://gw.example/api/proxied", accessToken: token });
    expect((await get("/proxied", { ...forwarded, authorization: `DPoP ${token}`, dpop: published })).status).toBe(200);
    const internal = await proofFor("/proxied");
    expectRefused(await get("/proxied", { ...forwarded, authorization: `DPoP ${token}`, dpop: internal }), "invalid_dpop_proof");
  });
});

describe("requireBearer without the dpop option", () => {
  it("refuses a bound token whatever the scheme, never taking it as a bearer token", async () => {
    expectRefused(await get("/plain", { authorization: `Bearer ${token}` }), "invalid_token");
    expectRefused(await get("/plain", { authorization: `DPoP ${token}`, dpop: await proofFor("/plain") }), "invalid_token");
  });
});
