import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import { freePort } from "../support/services.ts";

const dataDir = mkdtempSync(join(tmpdir(), "portcullis-create-store-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const options = { dataDir, logger: pino({ level: "silent" }) };

describe("createStore", () => {
  it.each(["embedded", "embedded:"])("opens the embedded store under <dataDir>/store for %j", async (url) => {
    const store = await createStore(url, options);
    try {
      expect(store.backend).toBe("embedded");
      await store.namespace("keys").set("k", 1);
      expect(existsSync(join(dataDir, "store", "keys.jsonl"))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it.each([
    ["redis", "redis://127.0.0.1:PORT"],
    ["redis", "rediss://127.0.0.1:PORT"],
    ["redis", "redis+sentinel://127.0.0.1:PORT/primary"],
    ["postgres", "postgres://u@127.0.0.1:PORT/db"],
    ["postgres", "postgresql://u@127.0.0.1:PORT/db"],
  ])("opens a %s store for %s, even while nothing answers there", async (backend, template) => {
    const store = await createStore(template.replace("PORT", String(await freePort())), options);
    await store.close();
    expect(store.backend).toBe(backend);
  });

  it("rejects an unknown scheme, naming it, without echoing a password", async () => {
    await expect(createStore("mysql://root:hunter2@db/portcullis", options)).rejects.toThrow(/scheme "mysql"/);
    await expect(createStore("mysql://root:hunter2@db/portcullis", options)).rejects.not.toThrow(/hunter2/);
    await expect(createStore("memory", options)).rejects.toThrow(/not supported/);
  });

  it("rejects a malformed Redis or PostgreSQL URL without echoing its password", async () => {
    for (const url of ["redis://admin:S3cretPassw0rd@127.0.0.1:999999", "postgres://admin:S3cretPassw0rd@[::1/x"]) {
      const error = await createStore(url, options).then(
        () => undefined,
        (e: unknown) => e as Error & Record<string, unknown>,
      );
      expect(error?.message).toMatch(/not a valid URL/);
      expect(JSON.stringify({ ...error, message: error?.message, stack: error?.stack })).not.toContain("S3cretPassw0rd");
    }
  });

  it("rejects an embedded URL with a host or path", async () => {
    await expect(createStore("embedded://somewhere", options)).rejects.toThrow(/embedded/);
  });
});
