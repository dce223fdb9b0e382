import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RunningService } from "../support/services.ts";
import { serviceUrl } from "../support/require-service.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { KEY_SYNC_EVERY_MS } from "../../src/tokens/key-manager.ts";

/**
 * Redis comes back empty (FLUSHALL, or a new server without persistence): the provider writes a new key
 * ring, but tokens signed before keep working until they expire, and their key stays in JWKS until then.
 * A Redis of its own: FLUSHALL on the suite's shared one would wipe other suites' records.
 */
const available = serviceUrl("redis") !== undefined;
const HOUR = 3_600_000;

describe.skipIf(!available)("a provider whose Redis store loses everything", () => {
  let redis: RunningService;
  let op: TestProvider;
  let now = Date.UTC(2026, 0, 1);

  beforeAll(async () => {
    redis = (await startRedis())!;
    // Lifetimes: access tokens 1h (the demo's), so retired keys are kept 1h.
    op = await startTestProvider({ storeUrl: redis.url, clock: () => now });
  });
  afterAll(async () => {
    await op?.close();
    await redis?.stop();
  });

  const kids = async () =>
    ((await send(`${op.url}/.well-known/openid-configuration/jwks`)).json!.keys as Array<{ kid: string }>).map((k) => k.kid);
  const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as { kid: string }).kid;
  const introspect = async (token: string) =>
    (await postForm(`${op.url}/connect/introspect`, { token }, { authorization: basic("acme-api", "acme-api-secret") })).json;

  it("still accepts a token signed before the flush, publishes its key until it has expired, then drops it", async () => {
    const issued = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "password", username: "alice", password: "alice-password", scope: "openid profile acme" },
      { authorization: basic("demo-legacy", "demo-legacy-secret") },
    );
    expect(issued.status, issued.text).toBe(200);
    const token = issued.json!.access_token as string;
    const oldKid = kidOf(token);

    const client = createClient({ url: redis.url });
    await client.connect();
    await client.flushAll();
    await client.quit();
    now += 1000;
    await op.provider.keys.sync(); // what the node's periodic re-read does

    expect(op.provider.keys.keys.signing.kid).not.toBe(oldKid);
    expect(await kids()).toContain(oldKid);
    expect(await introspect(token)).toMatchObject({ active: true, sub: "E10001" });
    const userinfo = await send(`${op.url}/connect/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(userinfo.status, userinfo.text).toBe(200);
    expect(userinfo.json).toMatchObject({ sub: "E10001" });
    // New tokens are signed with the new key.
    const fresh = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    expect(kidOf(fresh.json!.access_token as string)).toBe(op.provider.keys.keys.signing.kid);

    // The old key has outlived every token it signed, and the sync interval a retired key stays published longer.
    now += HOUR + KEY_SYNC_EVERY_MS;
    await op.provider.keys.sync();
    expect(await kids()).not.toContain(oldKid);
    // Left: the current key of each algorithm, generated anew after the flush.
    const signing = op.provider.keys.keys.algorithms.map((alg) => op.provider.keys.keys.signingKey(alg).kid);
    expect(signing).toHaveLength(3);
    expect((await kids()).sort()).toEqual(signing.sort());
  });
});
