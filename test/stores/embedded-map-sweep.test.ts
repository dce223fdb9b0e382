/**
 * The embedded store sweeps expired entries in slices, so that a map of millions never stalls the event
 * loop for a whole pass.
 */
import { describe, expect, it } from "vitest";
import { EmbeddedMap } from "../../src/stores/embedded-map.ts";
import type { EmbeddedEntry } from "../../src/stores/embedded-journal.ts";

const NOW = 1_000_000;
const expired: EmbeddedEntry = { payload: "{}", expiresAt: NOW - 1 };
const live: EmbeddedEntry = { payload: "{}", expiresAt: NOW + 60_000 };

function mapOf(entries: Array<[string, EmbeddedEntry]>): { map: EmbeddedMap; entries: Map<string, EmbeddedEntry> } {
  const backing = new Map(entries);
  return { map: new EmbeddedMap(backing, undefined), entries: backing };
}

describe("EmbeddedMap.sweepSlice", () => {
  it("looks at no more entries per slice than its budget and resumes where it stopped", () => {
    const { map, entries } = mapOf(Array.from({ length: 10 }, (_, i) => [`k${i}`, i % 2 === 0 ? expired : live]));
    expect(map.sweepSlice(NOW, 4)).toBe(false);
    // k0 and k2 were expired among the first four; k4.. not yet looked at.
    expect([...entries.keys()]).toEqual(["k1", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]);
    expect(map.sweepSlice(NOW, 4)).toBe(false);
    expect(map.sweepSlice(NOW, 4)).toBe(true);
    expect([...entries.keys()]).toEqual(["k1", "k3", "k5", "k7", "k9"]);
  });

  it("sees entries added and survives entries removed during a pass", async () => {
    const { map, entries } = mapOf([
      ["a", expired],
      ["b", live],
      ["c", live],
    ]);
    expect(map.sweepSlice(NOW, 1)).toBe(false);
    await map.atomic.take("b");
    entries.set("d", expired);
    while (!map.sweepSlice(NOW, 1));
    expect([...entries.keys()]).toEqual(["c"]);
  });

  it("starts a new pass after one has finished", () => {
    const { map, entries } = mapOf([["a", live]]);
    expect(map.sweepSlice(NOW, 10)).toBe(true);
    entries.set("b", expired);
    expect(map.sweepSlice(NOW, 10)).toBe(true);
    expect([...entries.keys()]).toEqual(["a"]);
  });
});
