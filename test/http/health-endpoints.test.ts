import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProtocolRouter } from "../../src/http/protocol-router.ts";
import { readinessEndpoint } from "../../src/http/endpoints/health-endpoints.ts";
import type { Infra } from "../../src/provider.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

describe("health and readiness", () => {
  it("/healthz says the process is up; /readyz that the store, the keys and the policy are", async () => {
    expect(await send(`${p.url}/healthz`)).toMatchObject({ status: 200, json: { status: "ok" } });
    const ready = await send(`${p.url}/readyz`);
    expect(ready).toMatchObject({ status: 200, json: { status: "ready", checks: { store: "ok", keys: "ok", policy: "ok" } } });
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect((await fetch(`${p.url}/readyz`, { method: "HEAD" })).status).toBe(200);
    expect((await send(`${p.url}/healthz`, { method: "POST" })).status).toBe(405);
  });

  describe("with a store that does not answer", () => {
    let server: Server;
    let url: string;
    const unready = (ping: () => Promise<void>) =>
      readinessEndpoint({ ...p.provider, store: { ...p.provider.store, ping } } as Infra, () => false);
    beforeAll(async () => {
      const routes = [
        { ...unready(() => Promise.reject(new Error("connection refused"))), path: "/refusing" },
        { ...unready(() => new Promise(() => {})), path: "/hanging" },
      ];
      server = createServer(
        createProtocolRouter(routes, {
          logger: pino({ level: "silent" }),
          logRequests: false,
          maxBodyBytes: 1024,
          fallback: (_req, res) => res.end(),
        }),
      );
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("is not ready, and says the store is why — whether the store refuses or hangs", async () => {
      for (const path of ["/refusing", "/hanging"]) {
        expect(await send(`${url}${path}`)).toMatchObject({
          status: 503,
          json: { status: "not_ready", checks: { store: "unavailable", keys: "ok", policy: "ok" } },
        });
      }
    });
  });
});
