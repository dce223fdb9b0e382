import { randomBytes } from "node:crypto";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { serviceUrl } from "../support/require-service.ts";
import { startRedis, type RunningService } from "../support/services.ts";
import { capturingLogger } from "./store-test-helpers.ts";

/**
 * `?wait=N` on a Redis store URL (the default on a Sentinel URL): a durable write is answered only once N
 * replicas have it (WAIT), and fails closed (503) when they do not acknowledge in time; other writes never wait.
 */
const url = serviceUrl("redis");
const prefix = `replication-${randomBytes(4).toString("hex")}`;
const dataDir = "/nonexistent";

describe.skipIf(url === undefined)("a Redis store that waits for replicas", () => {
  it("fails a durable write with StoreUnavailableError when no replica acknowledges, logging why; other writes do not wait", async () => {
    const { logger, lines } = capturingLogger();
    // The suite's Redis has no replica.
    const store = await createStore(`${url}?prefix=${prefix}&wait=1&wait_timeout_ms=100`, { dataDir, logger });
    try {
      await expect(store.namespace("refreshTokens").set("t", { sub: "s" }, 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.namespace("enrollments").add("e", { sub: "s" }, 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await store.namespace("codes").set("c", { sub: "s" }, 60_000);
      expect(await store.namespace("codes").take("c")).toEqual({ sub: "s" });
      expect(lines.join("\n")).toContain("0 of 1 replica(s) acknowledged the write within 100 ms");
    } finally {
      await store.close();
    }
  });

  it("puts back what a durable take removed when no replica acknowledges the removal: the caller is told 503 and finds the record there again", async () => {
    const plain = await createStore(`${url}?prefix=${prefix}`, { dataDir, logger: capturingLogger().logger });
    const waiting = await createStore(`${url}?prefix=${prefix}&wait=1&wait_timeout_ms=100`, { dataDir, logger: capturingLogger().logger });
    const raw = createClient({ url });
    await raw.connect();
    try {
      await plain.namespace("refreshTokens").set("taken", { sub: "s" }, 60_000);
      await plain.namespace("enrollments").set("deleted", { sub: "s" });
      await expect(waiting.namespace("refreshTokens").take("taken")).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(waiting.namespace("enrollments").delete("deleted")).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await plain.namespace("refreshTokens").get("taken")).toEqual({ sub: "s" });
      expect(await plain.namespace("enrollments").get("deleted")).toEqual({ sub: "s" });
      // Back with what was left of its life, and a record that never expired still never expires.
      const ttl = await raw.pTTL(`${prefix}:refreshTokens:taken`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await raw.pTTL(`${prefix}:enrollments:deleted`)).toBe(-1);
      // A take the store could confirm would have consumed it: the plain store still can.
      expect(await plain.namespace("refreshTokens").take("taken")).toEqual({ sub: "s" });
      expect(await plain.namespace("refreshTokens").get("taken")).toBeUndefined();
    } finally {
      raw.destroy();
      await waiting.close();
      await plain.close();
    }
  });

  it("writes durable records without waiting on a single Redis (no wait parameter)", async () => {
    const store = await createStore(`${url}?prefix=${prefix}`, { dataDir, logger: capturingLogger().logger });
    try {
      await store.namespace("refreshTokens").set("plain", { sub: "s" }, 60_000);
      expect(await store.namespace("refreshTokens").get("plain")).toEqual({ sub: "s" });
    } finally {
      await store.close();
    }
  });

  describe("with a replica", () => {
    let primary: RunningService;
    let replica: RunningService;
    let store: Store;
    let onReplica: ReturnType<typeof createClient>;

    beforeAll(async () => {
      primary = (await startRedis())!;
      replica = (await startRedis({ replicaOf: primary.port }))!;
      onReplica = createClient({ url: replica.url });
      await onReplica.connect();
      const deadline = Date.now() + 30_000;
      while (!(await onReplica.info("replication")).includes("master_link_status:up") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      store = await createStore(`${primary.url}?prefix=${prefix}&wait=1&wait_timeout_ms=1000`, {
        dataDir,
        logger: capturingLogger().logger,
      });
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      onReplica?.destroy();
      await replica?.stop();
      await primary?.stop();
    });

    it("answers a durable write once the replica has it", async () => {
      for (let i = 0; i < 20; i++) {
        await store.namespace("enrollments").set(`e${i}`, { n: i });
        // Read on the replica right after the answer: WAIT made sure it is there.
        expect(JSON.parse((await onReplica.get(`${prefix}:enrollments:e${i}`)) ?? "null")).toEqual({ value: { n: i } });
      }
    });
  });
});
