/**
 * The behaviour every store backend must have, run against each of them. `makeStores` returns two store
 * instances on the same backend (two clients, two pools) so that atomicity is checked across instances, as
 * between two provider processes; the embedded store returns one instance twice (one per directory).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/stores/store.ts";
import { describeStoreRaces } from "./store-contract-races.ts";

const TTL = 100;
const LONG_TTL = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** What a JSON round trip makes of a value (-0 becomes 0, and so on). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

export function describeStoreContract(name: string, makeStores: () => Promise<[Store, Store]>): void {
  describe(`${name} store contract`, () => {
    let a: Store;
    let b: Store;
    let sequence = 0;
    /** A key no other test (or earlier run of this one) uses. */
    const fresh = (label: string) => `${label}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;
    /** The first instance or the second. */
    const pick = (onA: boolean) => (onA ? a : b);

    beforeAll(async () => {
      [a, b] = await makeStores();
    });
    afterAll(async () => {
      await a?.close();
      if (b !== a) await b?.close();
    });

    it("refuses a record kind nobody declared, and serves one a plug-in's manifest declares", () => {
      const kind = `pluginKind${++sequence}`;
      expect(() => a.namespace(kind)).toThrow(`unknown record kind: ${kind}`);
      a.declare({ [kind]: { durable: false } });
      expect(a.namespace(kind)).toBeDefined();
      // Declared again alike (a second provider over a shared store): nothing changes.
      a.declare({ [kind]: { durable: false } });
      expect(() => a.declare({ [kind]: { durable: true } })).toThrow(`record kind ${kind} is declared twice with different traits`);
    });

    it("answers ping", async () => {
      await expect(a.ping()).resolves.toBeUndefined();
      await expect(b.ping()).resolves.toBeUndefined();
    });

    it("round-trips objects through set and get, across instances", async () => {
      const key = fresh("object");
      const value = { sub: "u1", amr: ["pwd", "otp"], nested: { n: 1.5, ok: true, none: null }, colon: ":leading", text: "ünï 漢字 🎉" };
      await a.namespace("sessions").set(key, value, LONG_TTL);
      expect(await b.namespace("sessions").get(key)).toEqual(value);
      await a.namespace("sessions").set(key, { replaced: true });
      expect(await b.namespace("sessions").get(key)).toEqual({ replaced: true });
    });

    it("round-trips any JSON value", async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (value) => {
          const key = fresh("json");
          await a.namespace("grants").set(key, value, LONG_TTL);
          expect(await b.namespace("grants").get(key)).toEqual(asJson(value));
        }),
        { numRuns: 50 },
      );
    });

    it("answers undefined for an absent key, and delete reports whether it removed something", async () => {
      const key = fresh("absent");
      const codes = a.namespace<string>("codes");
      expect(await codes.get(key)).toBeUndefined();
      expect(await codes.take(key)).toBeUndefined();
      expect(await codes.delete(key)).toBe(false);
      await codes.set(key, "v", LONG_TTL);
      expect(await b.namespace("codes").delete(key)).toBe(true);
      expect(await codes.get(key)).toBeUndefined();
      expect(await codes.delete(key)).toBe(false);
    });

    it("honours TTLs: a value is gone 2x its TTL after it was set", async () => {
      const key = fresh("ttl");
      const lasting = fresh("lasting");
      await a.namespace("interactions").set(key, { step: 1 }, TTL);
      await a.namespace("interactions").set(lasting, { step: 2 });
      await sleep(2 * TTL);
      expect(await b.namespace("interactions").get(key)).toBeUndefined();
      expect(await b.namespace("interactions").delete(key)).toBe(false);
      expect(await b.namespace("interactions").get(lasting)).toEqual({ step: 2 });
    });

    it("take returns the value once, then undefined", async () => {
      const key = fresh("take");
      await a.namespace("codes").set(key, { code: "c1" }, LONG_TTL);
      expect(await b.namespace("codes").take(key)).toEqual({ code: "c1" });
      expect(await a.namespace("codes").take(key)).toBeUndefined();
      expect(await b.namespace("codes").get(key)).toBeUndefined();
    });

    it("take of an expired value returns undefined", async () => {
      const key = fresh("take-expired");
      await a.namespace("codes").set(key, { code: "c2" }, TTL);
      await sleep(2 * TTL);
      expect(await b.namespace("codes").take(key)).toBeUndefined();
    });

    it("add creates once and never overwrites a live value", async () => {
      const key = fresh("add");
      expect(await a.namespace("claims").add(key, { by: "a" }, LONG_TTL)).toBe(true);
      expect(await b.namespace("claims").add(key, { by: "b" }, LONG_TTL)).toBe(false);
      expect(await b.namespace("claims").get(key)).toEqual({ by: "a" });
      await a.namespace("claims").set(key, { by: "set" });
      expect(await b.namespace("claims").add(key, { by: "b" }, LONG_TTL)).toBe(false);
    });

    it("add succeeds again once the value has expired", async () => {
      const key = fresh("add-expired");
      expect(await a.namespace("claims").add(key, 1, TTL)).toBe(true);
      await sleep(2 * TTL);
      expect(await b.namespace("claims").add(key, 2, LONG_TTL)).toBe(true);
      expect(await a.namespace("claims").get(key)).toBe(2);
    });

    it("increment counts from 1, and get reads the count", async () => {
      const key = fresh("count");
      expect(await a.namespace("rateLimits").increment(key, LONG_TTL)).toBe(1);
      expect(await b.namespace("rateLimits").increment(key, LONG_TTL)).toBe(2);
      expect(await a.namespace("rateLimits").increment(key, LONG_TTL)).toBe(3);
      expect(await b.namespace("rateLimits").get(key)).toBe(3);
    });

    it("increment starts again at 1 after the TTL", async () => {
      const key = fresh("count-expired");
      await a.namespace("rateLimits").increment(key, TTL);
      await sleep(2 * TTL);
      expect(await b.namespace("rateLimits").get(key)).toBeUndefined();
      expect(await b.namespace("rateLimits").increment(key, LONG_TTL)).toBe(1);
    });

    it("increment does not extend the TTL", async () => {
      // Incrementing every TTL/4 would keep a sliding TTL alive forever; a fixed one must lapse by 2x TTL.
      const key = fresh("count-fixed");
      const ttl = 400;
      const counts = [await a.namespace("rateLimits").increment(key, ttl)];
      const started = Date.now();
      while (Date.now() - started < 2 * ttl) {
        await sleep(ttl / 4);
        counts.push(
          await pick(counts.length % 2 === 0)
            .namespace("rateLimits")
            .increment(key, ttl),
        );
      }
      expect(counts.slice(1)).toContain(1);
    });

    it("keeps namespaces apart", async () => {
      const key = fresh("shared-name");
      await a.namespace("codes").set(key, "code");
      await a.namespace("sessions").set(key, "session");
      expect(await b.namespace("codes").take(key)).toBe("code");
      expect(await b.namespace("sessions").get(key)).toBe("session");
      expect(await b.namespace("refreshTokens").get(key)).toBeUndefined();
      expect(await b.namespace("rateLimits").increment(key, LONG_TTL)).toBe(1);
      expect(await b.namespace("sessions").get(key)).toBe("session");
    });

    it("refuses TTLs that are not positive", async () => {
      const key = fresh("bad-ttl");
      await expect(a.namespace("codes").set(key, 1, 0)).rejects.toThrow(RangeError);
      await expect(a.namespace("codes").add(key, 1, -5)).rejects.toThrow(RangeError);
      await expect(a.namespace("codes").increment(key, Number.NaN)).rejects.toThrow(RangeError);
    });

    describeStoreRaces(() => [a, b], fresh);
  });
}
