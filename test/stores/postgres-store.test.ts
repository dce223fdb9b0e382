import { randomBytes } from "node:crypto";
import pg from "pg";
import type { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore, type PostgresStoreOptions } from "../../src/stores/postgres-store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { serviceUrl } from "../support/require-service.ts";
import { freePort, startPostgres } from "../support/services.ts";
import { capturingLogger, silentServer, expectFailsFastWithoutLeaking } from "./store-test-helpers.ts";
import { describeStoreContract } from "./store-contract.ts";

const url = serviceUrl("postgres");
// Files run in parallel against one database: each keeps to its own key prefix.
const keyPrefix = `test-${randomBytes(4).toString("hex")}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(url === undefined)("postgres store", () => {
  const open = (options: Partial<PostgresStoreOptions> & { logger?: pino.Logger } = {}) =>
    new PostgresStore({ url: url!, keyPrefix, ...options });
  let raw: pg.Client;
  beforeAll(async () => {
    raw = new pg.Client({ connectionString: url! });
    await raw.connect();
  });
  afterAll(async () => {
    await raw?.end();
  });
  const rowsLike = async (pattern: string) =>
    (await raw.query<{ key: string; value: string }>("SELECT key, value FROM keyv WHERE key LIKE $1", [keyPrefix + pattern])).rows;

  describeStoreContract("postgres", async () => [open(), open()]);

  it("keeps Keyv's payload in table keyv under <prefix><kind>:<key>", async () => {
    const store = open();
    try {
      await store.namespace("codes").set("abc", { sub: "s" }, 60_000);
      const [row] = await rowsLike("codes:abc");
      expect(JSON.parse(row!.value)).toMatchObject({ value: { sub: "s" }, expires: expect.any(Number) });
      await raw.query("INSERT INTO keyv (key, value) VALUES ($1, $2)", [`${keyPrefix}codes:raw`, JSON.stringify({ value: "r" })]);
      expect(await store.namespace("codes").take("raw")).toBe("r");
    } finally {
      await store.close();
    }
  });

  it("ignores expired rows on read and sweeps them", async () => {
    const store = open();
    const sweeping = open({ sweepIntervalMs: 50 });
    try {
      await store.namespace("interactions").set("sweep-gone", { i: 1 }, 20);
      await store.namespace("interactions").set("sweep-kept", { i: 2 });
      await sleep(40);
      expect(await store.namespace("interactions").get("sweep-gone")).toBeUndefined();
      await store.namespace("interactions").set("sweep-unread", { i: 3 }, 20);
      await sleep(300);
      expect((await rowsLike("interactions:sweep-%")).map((row) => row.key)).toEqual([`${keyPrefix}interactions:sweep-kept`]);
    } finally {
      await store.close();
      await sweeping.close();
    }
  });

  it("closes only its own pool: another store on the same URL keeps working", async () => {
    const first = open();
    const second = open();
    await first.namespace("sessions").set("s", 1);
    await first.close();
    expect(await second.namespace("sessions").get("s")).toBe(1);
    await second.close();
  });

  it("creates its table once when several processes start on an empty database at the same moment", async () => {
    const database = `race_${randomBytes(4).toString("hex")}`;
    await raw.query(`CREATE DATABASE ${database}`);
    const fresh = new URL(url!);
    fresh.pathname = `/${database}`;
    const stores = Array.from({ length: 6 }, () => new PostgresStore({ url: fresh.toString(), keyPrefix }));
    try {
      await Promise.all(stores.map((s) => s.namespace("codes").set("k", 1, 60_000)));
      expect(await stores[0]!.namespace("codes").get("k")).toBe(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await raw.query(`DROP DATABASE ${database}`);
    }
  });

  it("refuses keys longer than the key column", async () => {
    const store = open();
    try {
      await expect(store.namespace("codes").set("x".repeat(300), 1)).rejects.toThrow(RangeError);
    } finally {
      await store.close();
    }
  });

  describe("when PostgreSQL is unreachable", () => {
    it("fails fast with StoreUnavailableError when nothing listens, and logs neither keys nor values", async () => {
      const { logger, lines } = capturingLogger();
      const store = open({ url: `postgres://postgres@127.0.0.1:${await freePort()}/portcullis`, logger });
      try {
        await expectFailsFastWithoutLeaking(store, lines);
      } finally {
        await store.close();
      }
    });

    it("fails fast, without crashing, when the server dies under idle pooled connections", async () => {
      const { logger, lines } = capturingLogger();
      const server = (await startPostgres())!;
      const store = open({ url: server.url, logger });
      try {
        await Promise.all([1, 2, 3].map((i) => store.namespace("sessions").set(`s${i}`, i)));
        await server.stop();
        await sleep(200);
        const started = Date.now();
        await expect(store.namespace("sessions").get("s1")).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(2500);
        expect(lines.some((line) => line.includes("lost an idle connection"))).toBe(true);
      } finally {
        await store.close();
      }
    });

    it("fails fast when the server answers nothing", async () => {
      const server = await silentServer();
      const store = open({ url: `postgres://postgres@127.0.0.1:${server.port}/portcullis` });
      try {
        const started = Date.now();
        await expect(store.namespace("codes").get("k")).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(2500);
      } finally {
        await server.close();
        await store.close();
      }
    });
  });
});
