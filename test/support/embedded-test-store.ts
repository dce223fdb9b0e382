import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";

/**
 * An embedded store of its own for the calling describe block: opened in a fresh temporary data
 * directory before its tests, closed and the directory removed after them. Returns the store's getter
 * (the store exists once beforeAll has run).
 */
export function embeddedStoreForSuite(prefix: string): () => Store {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  let store: Store | undefined;
  beforeAll(async () => {
    store = await createStore("embedded", { dataDir, logger: pino({ level: "silent" }) });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return () => store!;
}
