import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RunningService } from "../support/services.ts";
import { serviceUrl } from "../support/require-service.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * A store that goes down is an outage of the features that need it, answered as 503
 * temporarily_unavailable — never a crash, a hang, or a 500 with a stack trace.
 */
const available = serviceUrl("redis") !== undefined;

describe.skipIf(!available)("a provider whose Redis store goes down", () => {
  let redis: RunningService;
  let op: TestProvider;
  let token: string;
  /** A reference token of demo-portal: its claims are in the store that goes down. */
  let handle: string;

  beforeAll(async () => {
    redis = (await startRedis())!;
    op = await startTestProvider({ storeUrl: redis.url });
    const issued = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    token = issued.json!.access_token as string;
    const reference = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-portal", "demo-portal-secret") },
    );
    handle = reference.json!.access_token as string;
    expect(handle).toMatch(/^[\w-]{43}$/);
    await redis.stop();
  });
  afterAll(async () => {
    await op?.close();
  });

  it("answers introspection, which reads the revocation list, with 503 temporarily_unavailable", async () => {
    const started = Date.now();
    const res = await postForm(`${op.url}/connect/introspect`, { token }, { authorization: basic("acme-api", "acme-api-secret") });
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(Date.now() - started).toBeLessThan(10_000); // fails fast rather than hanging on the dead socket
  });

  it("answers the password grant, which counts attempts in the store, with 503 too", async () => {
    const res = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "password", username: "alice", password: "alice-password" },
      { authorization: basic("demo-legacy", "demo-legacy-secret") },
    );
    expect(res.status).toBe(503);
    expect(res.json?.error).toBe("temporarily_unavailable");
  });

  it("answers a reference token with 503 at introspection, userinfo and revocation: its record cannot be read, which says nothing of its validity", async () => {
    const introspection = await postForm(
      `${op.url}/connect/introspect`,
      { token: handle },
      { authorization: basic("acme-api", "acme-api-secret") },
    );
    const userinfo = await fetch(`${op.url}/connect/userinfo`, { headers: { authorization: `Bearer ${handle}` } });
    const revocation = await postForm(
      `${op.url}/connect/revocation`,
      { token: handle },
      { authorization: basic("demo-portal", "demo-portal-secret") },
    );
    for (const res of [introspection, { status: userinfo.status, json: (await userinfo.json()) as Record<string, unknown> }, revocation]) {
      expect(res.status).toBe(503);
      expect(res.json?.error).toBe("temporarily_unavailable");
    }
  });

  it("cannot issue a reference token (503), while a JWT client's client_credentials needs no store", async () => {
    const res = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-portal", "demo-portal-secret") },
    );
    expect(res.status).toBe(503);
    expect(res.json?.error).toBe("temporarily_unavailable");
  });

  it("keeps serving what needs no store: discovery, JWKS and client_credentials", async () => {
    expect((await fetch(`${op.url}/.well-known/openid-configuration/jwks`)).status).toBe(200);
    const res = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    expect(res.status).toBe(200);
  });

  it("logs the outage as a warning without a stack trace or a 500", () => {
    const lines = op.logs;
    expect(lines.some((l) => l.msg === "store unavailable")).toBe(true);
    expect(lines.some((l) => l.status === 500)).toBe(false);
  });
});
