import { randomBytes } from "node:crypto";
import { createClient } from "@keyv/redis";
import type { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../../src/stores/redis-store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { serviceUrl } from "../support/require-service.ts";
import { freePort, startRedis } from "../support/services.ts";
import { capturingLogger, silentServer, expectFailsFastWithoutLeaking } from "./store-test-helpers.ts";
import { describeStoreContract } from "./store-contract.ts";

const url = serviceUrl("redis");
// Files run in parallel against one server: each keeps to its own prefix.
const keyPrefix = `test-${randomBytes(4).toString("hex")}:`;

describe.skipIf(url === undefined)("redis store", () => {
  const open = (options: { url?: string; logger?: pino.Logger } = {}) =>
    RedisStore.open({ url: options.url ?? url!, keyPrefix, logger: options.logger });

  describeStoreContract("redis", async () => [await open(), await open()]);

  describe("key layout", () => {
    let store: RedisStore;
    let raw: ReturnType<typeof createClient>;
    beforeAll(async () => {
      store = await open();
      raw = createClient({ url: url! });
      await raw.connect();
    });
    afterAll(async () => {
      await store.close();
      raw.destroy();
    });

    it("writes Keyv's payload under <prefix><kind>:<key> with a native TTL", async () => {
      await store.namespace("codes").set("abc", { sub: "s" }, 60_000);
      const payload = JSON.parse((await raw.get(`${keyPrefix}codes:abc`)) ?? "null");
      expect(payload.value).toEqual({ sub: "s" });
      expect(payload.expires).toBeGreaterThan(Date.now());
      expect(await raw.pTTL(`${keyPrefix}codes:abc`)).toBeGreaterThan(0);
      await store.namespace("rateLimits").increment("ip", 60_000);
      expect(JSON.parse((await raw.get(`${keyPrefix}rateLimits:ip`)) ?? "null").value).toBe(1);
    });

    it("takes a value written raw in Keyv's format", async () => {
      await raw.set(`${keyPrefix}codes:raw`, JSON.stringify({ value: { raw: true }, expires: Date.now() + 60_000 }));
      expect(await store.namespace("codes").take("raw")).toEqual({ raw: true });
      expect(await raw.exists(`${keyPrefix}codes:raw`)).toBe(0);
    });
  });

  describe("when Redis is unreachable", () => {
    it("fails fast with StoreUnavailableError when nothing listens, and logs neither keys nor values", async () => {
      const { logger, lines } = capturingLogger();
      const store = await open({ url: `redis://127.0.0.1:${await freePort()}`, logger });
      try {
        await expectFailsFastWithoutLeaking(store, lines);
      } finally {
        await store.close();
      }
    });

    it("fails fast when the server answers nothing", async () => {
      const server = await silentServer();
      const store = await open({ url: `redis://127.0.0.1:${server.port}` });
      try {
        const started = Date.now();
        await expect(store.namespace("codes").get("k")).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(2500);
      } finally {
        await store.close();
        await server.close();
      }
    });

    it("fails fast while the server is stopped, and recovers when it is back", async () => {
      let server = (await startRedis())!;
      const store = await open({ url: server.url });
      try {
        await store.namespace("sessions").set("s", { sub: "s" });
        await server.stop();
        const started = Date.now();
        await expect(store.namespace("sessions").get("s")).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(2500);

        server = (await startRedis({ port: server.port }))!;
        const deadline = Date.now() + 10_000;
        let recovered = false;
        while (!recovered && Date.now() < deadline) {
          recovered = await store.ping().then(
            () => true,
            () => false,
          );
          if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(recovered).toBe(true);
        await store.namespace("sessions").set("s2", { sub: "s2" });
        expect(await store.namespace("sessions").get("s2")).toEqual({ sub: "s2" });
      } finally {
        await store.close();
        await server.stop();
      }
    });
  });
});
