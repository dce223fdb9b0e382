import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/stores/embedded-store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { describeStoreContract } from "./store-contract.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-embedded-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const journalLines = (dir: string, kind: string) =>
  readFileSync(join(dir, `${kind}.jsonl`), "utf8")
    .split("\n")
    .filter(Boolean);

describeStoreContract("embedded", async () => {
  // Two instances on one directory are not supported: the contract gets the same instance twice.
  const store = new EmbeddedStore({ dir: tempDir() });
  return [store, store];
});

describe("embedded store", () => {
  it("journals a durable kind declared after the start, and reads it back after a restart", async () => {
    const dir = tempDir();
    const first = new EmbeddedStore({ dir });
    first.declare({ pluginRecords: { durable: true } });
    await first.namespace("pluginRecords").set("k", { kept: true });
    await first.close();
    expect(journalLines(dir, "pluginRecords")).toHaveLength(1);
    const second = new EmbeddedStore({ dir });
    try {
      second.declare({ pluginRecords: { durable: true } });
      expect(await second.namespace("pluginRecords").get("k")).toEqual({ kept: true });
    } finally {
      await second.close();
    }
  });

  it("evicts expired entries that nobody reads again", async () => {
    const store = new EmbeddedStore({ dir: tempDir(), sweepIntervalMs: 20 });
    try {
      for (let i = 0; i < 20; i++) await store.namespace("codes").set(`code-${i}`, { i }, 30);
      await store.namespace("refreshTokens").set("rt", { family: "f" }, 30);
      await store.namespace("codes").set("lasting", { i: -1 });
      expect(store.entryCount("codes")).toBe(21);
      await sleep(200);
      expect(store.entryCount("codes")).toBe(1);
      expect(store.entryCount("refreshTokens")).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("sweeps a large map in slices, letting other work run between them", async () => {
    const store = new EmbeddedStore({ dir: tempDir(), sweepIntervalMs: 50 });
    try {
      const codes = store.namespace("codes");
      await Promise.all(Array.from({ length: 60_000 }, (_, i) => codes.set(`code-${i}`, { i }, 1)));
      // Ticks of a timer that fire while entries are still waiting to be swept show the loop was not held.
      let ticksDuringSweep = 0;
      const ticker = setInterval(() => {
        const count = store.entryCount("codes");
        if (count > 0 && count < 60_000) ticksDuringSweep++;
      }, 0);
      while (store.entryCount("codes") > 0) await sleep(5);
      clearInterval(ticker);
      expect(ticksDuringSweep).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("keeps durable kinds across close and reopen, and forgets the others", async () => {
    const dir = tempDir();
    const first = new EmbeddedStore({ dir });
    await first.namespace("refreshTokens").set("kept", { family: "f1" }, 60_000);
    await first.namespace("refreshTokens").set("deleted", { family: "f2" });
    await first.namespace("refreshTokens").delete("deleted");
    await first.namespace("refreshTokens").set("taken", { family: "f3" });
    await first.namespace("refreshTokens").take("taken");
    await first.namespace("keys").set("k1", { kid: "k1", status: "current" });
    await first.namespace("keys").set("k1", { kid: "k1", status: "retired" });
    await first.namespace("enrollments").add("device", { pub: "p" }, 60_000);
    await first.namespace("revokedTokens").increment("jti", 60_000);
    await first.namespace("revokedTokens").increment("jti", 60_000);
    await first.namespace("codes").set("code", { sub: "s" });
    await first.namespace("sessions").set("sid", { sub: "s" });
    await first.close();

    const second = new EmbeddedStore({ dir });
    try {
      expect(await second.namespace("refreshTokens").get("kept")).toEqual({ family: "f1" });
      expect(await second.namespace("refreshTokens").get("deleted")).toBeUndefined();
      expect(await second.namespace("refreshTokens").get("taken")).toBeUndefined();
      expect(await second.namespace("keys").get("k1")).toEqual({ kid: "k1", status: "retired" });
      expect(await second.namespace("enrollments").get("device")).toEqual({ pub: "p" });
      expect(await second.namespace("revokedTokens").increment("jti", 60_000)).toBe(3);
      expect(await second.namespace("codes").get("code")).toBeUndefined();
      expect(await second.namespace("sessions").get("sid")).toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it("compacts journals on open, dropping what expired while closed", async () => {
    const dir = tempDir();
    const first = new EmbeddedStore({ dir });
    await first.namespace("grants").set("short", { g: 1 }, 30);
    for (let i = 0; i < 5; i++) await first.namespace("grants").set("rewritten", { g: i });
    await first.close();
    expect(journalLines(dir, "grants")).toHaveLength(6);
    await sleep(60);

    const second = new EmbeddedStore({ dir });
    try {
      expect(journalLines(dir, "grants")).toHaveLength(1);
      expect(second.entryCount("grants")).toBe(1);
      expect(await second.namespace("grants").get("short")).toBeUndefined();
      expect(await second.namespace("grants").get("rewritten")).toEqual({ g: 4 });
    } finally {
      await second.close();
    }
  });

  it("opens a journal whose last line was cut short by a crash", async () => {
    const dir = tempDir();
    const first = new EmbeddedStore({ dir });
    await first.namespace("keys").set("k1", { kid: "k1" });
    await first.close();
    appendFileSync(join(dir, "keys.jsonl"), '{"k":"k2","v":"{\\"val');

    const second = new EmbeddedStore({ dir });
    try {
      expect(await second.namespace("keys").get("k1")).toEqual({ kid: "k1" });
      expect(await second.namespace("keys").get("k2")).toBeUndefined();
      await second.namespace("keys").set("k3", { kid: "k3" });
      expect(journalLines(dir, "keys").map((line) => JSON.parse(line).k)).toEqual(["k1", "k3"]);
    } finally {
      await second.close();
    }
  });

  it("refuses a second store on the same directory", async () => {
    const dir = tempDir();
    const store = new EmbeddedStore({ dir });
    try {
      expect(() => new EmbeddedStore({ dir })).toThrow(/already open/);
    } finally {
      await store.close();
    }
    const reopened = new EmbeddedStore({ dir });
    await reopened.close();
  });

  it("rejects operations after close with StoreUnavailableError", async () => {
    const store = new EmbeddedStore({ dir: tempDir() });
    await store.close();
    await expect(store.namespace("codes").get("x")).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe("embedded store: how memory-only kinds keep their values", () => {
  it("keeps an immutable kind's value by reference, frozen all the way down: a reader cannot change what the next one reads", async () => {
    const store = new EmbeddedStore({ dir: tempDir() });
    try {
      const sessions = store.namespace<{ sub: string; amr: string[]; nested: { n: number } }>("sessions");
      const value = { sub: "u1", amr: ["pwd"], nested: { n: 1 } };
      await sessions.set("s", value, 60_000);
      const read = (await sessions.get("s"))!;
      expect(read).toEqual({ sub: "u1", amr: ["pwd"], nested: { n: 1 } });
      expect(Object.isFrozen(read) && Object.isFrozen(read.amr) && Object.isFrozen(read.nested)).toBe(true);
      expect(() => read.amr.push("otp")).toThrow(TypeError);
      expect(() => {
        read.nested.n = 2;
      }).toThrow(TypeError);
      // The writer's object is the stored one: it cannot change it afterwards either.
      expect(() => {
        value.sub = "u2";
      }).toThrow(TypeError);
      expect(await sessions.get("s")).toEqual({ sub: "u1", amr: ["pwd"], nested: { n: 1 } });
    } finally {
      await store.close();
    }
  });

  it("gives every read of another memory-only kind a fresh copy, as Redis and PostgreSQL do", async () => {
    const store = new EmbeddedStore({ dir: tempDir() });
    try {
      const interactions = store.namespace<{ step: number; seen: string[] }>("interactions");
      const value = { step: 1, seen: ["a"] };
      await interactions.set("i", value, 60_000);
      value.seen.push("changed by the writer");
      const first = (await interactions.get("i"))!;
      first.seen.push("changed by a reader");
      expect(await interactions.get("i")).toEqual({ step: 1, seen: ["a"] });
    } finally {
      await store.close();
    }
  });

  it("counts and expires in an immutable kind as in any other", async () => {
    const store = new EmbeddedStore({ dir: tempDir() });
    try {
      const codes = store.namespace<unknown>("codes");
      expect([await codes.increment("n", 60_000), await codes.increment("n", 60_000)]).toEqual([1, 2]);
      expect(await codes.get("n")).toBe(2);
      await codes.set("short", { code: "c" }, 20);
      expect(await codes.add("short", { code: "other" }, 60_000)).toBe(false);
      await sleep(60);
      expect(await codes.get("short")).toBeUndefined();
      expect(await codes.add("short", { code: "other" }, 60_000)).toBe(true);
      expect(await codes.take("short")).toEqual({ code: "other" });
      expect(await codes.take("short")).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
