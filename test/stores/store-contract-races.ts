/**
 * The contract's concurrency properties: many callers at once, split at random between two store
 * instances on one backend, must see each single-use operation succeed exactly once.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import type { Store } from "../../src/stores/store.ts";

/** What a JSON round trip makes of a value (-0 becomes 0, and so on). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const LONG_TTL = 60_000;
const sides = fc.array(fc.boolean(), { minLength: 50, maxLength: 50 });

export function describeStoreRaces(stores: () => [Store, Store], fresh: (label: string) => string): void {
  const pick = (onA: boolean) => stores()[onA ? 0 : 1];

  it("gives the value to exactly one of 50 concurrent takes split across instances", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
        sides,
        fc.jsonValue({ maxDepth: 2 }),
        async (suffix, split, value) => {
          const key = `${fresh("race")}:${suffix}`;
          await pick(split[0] ?? true)
            .namespace("codes")
            .set(key, value, LONG_TTL);
          const taken = await Promise.all(split.map((onA) => pick(onA).namespace("codes").take(key)));
          // Compared as JSON: a kind the embedded store keeps by reference (codes, isImmutableKind) hands
          // back the very value stored (a -0 stays -0), the others a JSON copy, as Redis and PostgreSQL do.
          const winners = taken.filter((result) => result !== undefined);
          expect(winners.map(asJson)).toEqual([asJson(value)]);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("tells exactly one of 50 concurrent deletes that it removed the value", async () => {
    await fc.assert(
      fc.asyncProperty(sides, async (split) => {
        const key = fresh("delete-race");
        await pick(true).namespace("qrSessions").set(key, { scanned: false }, LONG_TTL);
        const removed = await Promise.all(split.map((onA) => pick(onA).namespace("qrSessions").delete(key)));
        expect(removed.filter(Boolean)).toHaveLength(1);
      }),
      { numRuns: 10 },
    );
  });

  it("lets exactly one of 50 concurrent adds create the key", async () => {
    await fc.assert(
      fc.asyncProperty(sides, async (split) => {
        const key = fresh("add-race");
        const added = await Promise.all(split.map((onA, i) => pick(onA).namespace("claims").add(key, { winner: i }, LONG_TTL)));
        const winners = added.flatMap((ok, i) => (ok ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(await pick(true).namespace("claims").get(key)).toEqual({ winner: winners[0] });
      }),
      { numRuns: 20 },
    );
  });

  it("counts 50 concurrent increments as 1 to 50", async () => {
    await fc.assert(
      fc.asyncProperty(sides, async (split) => {
        const key = fresh("increment-race");
        const counts = await Promise.all(split.map((onA) => pick(onA).namespace("rateLimits").increment(key, LONG_TTL)));
        expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
        expect(await pick(false).namespace("rateLimits").get(key)).toBe(50);
      }),
      { numRuns: 20 },
    );
  });
}
