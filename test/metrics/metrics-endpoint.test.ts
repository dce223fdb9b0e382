import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { labelValues, parsePrometheusText, total } from "../support/prometheus-text.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

const TOKEN = "metrics-scraper-token-for-tests";
const service = { authorization: basic("demo-service", "demo-service-secret") };

describe("/metrics on the main port behind metrics.token", () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider({ edits: { "provider.yaml": { "metrics.token": TOKEN } } });
  });
  afterAll(() => p?.close());

  const scrape = async () => {
    const res = await send(`${p.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    return parsePrometheusText(res.text);
  };

  it("answers 401 without the token or with another one, and serves Prometheus text with it", async () => {
    const none = await send(`${p.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(none.text).not.toContain("http_request_duration_seconds");
    expect((await send(`${p.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await send(`${p.url}/metrics`, { headers: { authorization: basic("demo-service", TOKEN) } })).status).toBe(401);
    const samples = await scrape();
    expect(total(samples, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThan(0);
  });

  it("counts requests by route and status, with their latency", async () => {
    const before = await scrape();
    const ok = { route: "/connect/token", status: "200" };
    const bad = { route: "/connect/token", status: "401" };
    for (let i = 0; i < 3; i++)
      expect((await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, service)).status).toBe(200);
    expect(
      (await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, { authorization: basic("demo-service", "wrong") }))
        .status,
    ).toBe(401);
    const after = await scrape();
    expect(total(after, "http_request_duration_seconds_count", ok) - total(before, "http_request_duration_seconds_count", ok)).toBe(3);
    expect(total(after, "http_request_duration_seconds_count", bad) - total(before, "http_request_duration_seconds_count", bad)).toBe(1);
    expect(total(after, "http_request_duration_seconds_sum", ok)).toBeGreaterThan(total(before, "http_request_duration_seconds_sum", ok));
    expect(total(after, "http_request_duration_seconds_bucket", { ...ok, le: "+Inf" })).toBe(
      total(after, "http_request_duration_seconds_count", ok),
    );
  });

  it("never turns a requested path into a label value: unknown paths are 'other', ids fold into their area", async () => {
    const random = () => `probe${Math.random().toString(36).slice(2)}`;
    const probes = [
      `/${random()}`,
      `/${random()}/${random()}`,
      `/interaction/${random()}`,
      `/methods/${random()}/${random()}`,
      `/connect/token/${random()}`,
    ];
    for (const path of probes) await send(`${p.url}${path}`);
    const text = (await send(`${p.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text;
    for (const path of probes) for (const part of path.split("/").slice(1)) if (part.startsWith("probe")) expect(text).not.toContain(part);
    const routes = labelValues(parsePrometheusText(text), "http_request_duration_seconds_count", "route");
    expect(routes).toContain("other");
    expect(routes).toContain("/interaction/*");
    expect(routes).toContain("/methods/*");
    for (const route of routes) expect(route).toMatch(/^(other|\/[\w./-]*(\/\*)?)$/);
    const before = routes.size;
    for (const path of probes) await send(`${p.url}${path}`);
    expect(labelValues(await scrape(), "http_request_duration_seconds_count", "route").size).toBe(before);
  });

  it("counts logins by flow and outcome and tokens by grant from the audit trail", async () => {
    const before = await scrape();
    const login = { flow_id: "password", machine_hash: "h", path: ["start", "done"] };
    p.provider.audit.record({ type: "login.succeeded", ...login, sub: "E10001" });
    p.provider.audit.record({ type: "login.succeeded", ...login, sub: "E10001" });
    p.provider.audit.record({ type: "login.failed", ...login, reason: "bad password" });
    p.provider.audit.record({
      type: "token.issued",
      grant: "authorization_code",
      client_id: "demo-web",
      sub: "E10001",
      jti: "j1",
      id_token: true,
      refresh_token: false,
    });
    p.provider.audit.record({ type: "factor.passed", method: "totp", flow_id: "password" });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
    expect(delta("portcullis_logins_total", { flow: "password", outcome: "succeeded" })).toBe(2);
    expect(delta("portcullis_logins_total", { flow: "password", outcome: "failed" })).toBe(1);
    expect(delta("portcullis_tokens_issued_total", { grant: "authorization_code", token_type: "access_token" })).toBe(1);
    expect(delta("portcullis_tokens_issued_total", { grant: "authorization_code", token_type: "id_token" })).toBe(1);
    expect(delta("portcullis_tokens_issued_total", { grant: "authorization_code", token_type: "refresh_token" })).toBe(0);
  });

  it("counts a real token response by its grant", async () => {
    const before = await scrape();
    await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, service);
    const after = await scrape();
    const labels = { grant: "client_credentials", token_type: "access_token" };
    expect(total(after, "portcullis_tokens_issued_total", labels) - total(before, "portcullis_tokens_issued_total", labels)).toBe(1);
  });

  it("times the store's operations by operation and record kind", async () => {
    // A revocation writes the token to the denylist: a store operation.
    const token = (await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, service)).json!.access_token as string;
    const before = await scrape();
    await postForm(`${p.url}/connect/revocation`, { token }, service);
    const after = await scrape();
    const ops = (samples: typeof after) => total(samples, "portcullis_store_operation_duration_seconds_count");
    expect(ops(after)).toBeGreaterThan(ops(before));
    expect(labelValues(after, "portcullis_store_operation_duration_seconds_count", "kind")).toContain("keys");
  });
});

describe("/metrics on a separate metrics.listen address", () => {
  let p: TestProvider;
  let metricsUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    p = await startTestProvider({ edits: { "provider.yaml": { "metrics.listen": `127.0.0.1:${port}` } } });
  });
  afterAll(() => p?.close());

  it("serves the metrics there without a token, and not on the main port", async () => {
    expect((await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, service)).status).toBe(200);
    const res = await send(metricsUrl);
    expect(res.status).toBe(200);
    expect(total(parsePrometheusText(res.text), "http_request_duration_seconds_count", { route: "/connect/token", status: "200" })).toBe(1);
    expect((await send(`${p.url}/metrics`)).status).toBe(404);
    expect((await send(metricsUrl.replace("/metrics", "/healthz"))).status).toBe(404);
  });
});
