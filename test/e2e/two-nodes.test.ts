import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceUrl } from "../support/require-service.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Two provider processes of one deployment on one Redis (same issuer, same key prefix): whatever one
 * node issues, records or revokes, the other sees — keys, revocations and attempt counters alike.
 */
const redisUrl = serviceUrl("redis");

describe.skipIf(!redisUrl)("two provider nodes sharing one Redis store", () => {
  let a: TestProvider;
  let b: TestProvider;
  const service = { authorization: basic("demo-service", "demo-service-secret") };
  const api = { authorization: basic("acme-api", "acme-api-secret") };

  beforeAll(async () => {
    const storeUrl = `${redisUrl}?prefix=two-nodes-${Date.now()}`;
    a = await startTestProvider({ storeUrl });
    b = await startTestProvider({ storeUrl, issuer: a.issuer });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const token = async (node: TestProvider) =>
    (await postForm(`${node.url}/connect/token`, { grant_type: "client_credentials" }, service)).json!.access_token as string;
  const active = async (node: TestProvider, t: string) => (await postForm(`${node.url}/connect/introspect`, { token: t }, api)).json!.active;

  it("publishes the same signing keys from both nodes", async () => {
    const jwks = await Promise.all([a, b].map(async (n) => (await fetch(`${n.url}/.well-known/openid-configuration/jwks`)).json()));
    expect(jwks[0]).toEqual(jwks[1]);
  });

  it("accepts on one node a token issued by the other", async () => {
    expect(await active(b, await token(a))).toBe(true);
    expect(await active(a, await token(b))).toBe(true);
  });

  it("honours on one node a revocation made on the other", async () => {
    const t = await token(a);
    const revoked = await postForm(`${b.url}/connect/revocation`, { token: t }, service);
    expect(revoked.status).toBe(200);
    expect(await active(a, t)).toBe(false);
  });

  it("counts password failures across nodes, so spreading guesses over nodes does not help", async () => {
    const legacy = { authorization: basic("demo-legacy", "demo-legacy-secret") };
    const attempt = (node: TestProvider, password: string) =>
      postForm(`${node.url}/connect/token`, { grant_type: "password", username: "bob", password }, legacy);
    for (let i = 0; i < 5; i++) expect((await attempt(i % 2 === 0 ? a : b, `wrong-${i}`)).status).toBe(400);
    const right = await attempt(b, "bob-password");
    expect(right.status).toBe(400);
    expect(right.json?.error).toBe("invalid_grant");
  });
});
