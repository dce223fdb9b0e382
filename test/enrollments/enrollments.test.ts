import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Enrollments } from "../../src/enrollments/enrollments.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { availableBackends } from "../support/backends.ts";

/**
 * Enrollment records are changed by read-modify-write (a device added, a signature counter moved).
 * `update` makes that one step across callers and processes: on every backend, with two store
 * instances standing for two provider nodes, no concurrent change is lost.
 */
describe.each(availableBackends())("enrollment updates on the $name store", ({ name, url }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-enrollments-"));
  const stores: Store[] = [];
  let nodes: Enrollments[];
  beforeAll(async () => {
    const logger = pino({ level: "silent" });
    stores.push(await createStore(url, { dataDir, logger }));
    // The embedded store belongs to one process: its "second node" is the same store.
    stores.push(name === "embedded" ? stores[0]! : await createStore(url, { dataDir, logger }));
    // Twenty changes queue on one lock: on a busy machine that takes longer than a user would wait.
    nodes = stores.map((s) => new Enrollments(s, Date.now, 120_000));
  });
  afterAll(async () => {
    for (const store of new Set(stores)) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every one of 20 concurrent changes made through two nodes", async () => {
    const sub = `E${Date.now()}`;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        nodes[i % 2]!.update<{ items: number[] }>("test", sub, (current) => ({ items: [...(current?.items ?? []), i] })),
      ),
    );
    const record = await nodes[0]!.get<{ items: number[] }>("test", sub);
    expect(record?.data.items.slice().sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("removes the record when the change returns nothing, writes nothing when it returns the same data, and releases the lock after a throw", async () => {
    const sub = `F${Date.now()}`;
    const first = await nodes[0]!.update<{ n: number }>("test", sub, () => ({ n: 1 }));
    expect(await nodes[1]!.update<{ n: number }>("test", sub, (current) => current)).toEqual(first);
    await expect(nodes[0]!.update("test", sub, () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(await nodes[1]!.update<{ n: number }>("test", sub, () => undefined)).toBeUndefined();
    expect(await nodes[0]!.get("test", sub)).toBeUndefined();
  });

  it("answers a record held busy past the wait like an outage, not a crash", async () => {
    const sub = `G${Date.now()}`;
    await stores[0]!.namespace<true>("locks").add(`enrollment:test:${sub}`, true, 10_000);
    // A node with the production wait (3 s), not the test nodes' long one.
    const node = new Enrollments(stores[1]!, Date.now);
    const started = Date.now();
    await expect(node.update("test", sub, () => ({}))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  }, 30_000);
});
