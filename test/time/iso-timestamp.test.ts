import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isoTimestamp } from "../../src/time/iso-timestamp.ts";

describe("isoTimestamp", () => {
  it("writes every instant as Date#toISOString does, also across seconds in any order", () => {
    // Instants from 1970 to 9999, in random order: the per-second cache must never answer for another second.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 253_402_300_799_999 }), { minLength: 1, maxLength: 20 }), (instants) => {
        for (const now of instants) expect(isoTimestamp(now)).toBe(new Date(now).toISOString());
      }),
    );
  });

  it("pads the milliseconds within one second", () => {
    const second = Date.UTC(2026, 10, 26, 13, 10, 5);
    for (const ms of [0, 7, 42, 999]) expect(isoTimestamp(second + ms)).toBe(new Date(second + ms).toISOString());
  });

  it("defaults to now", () => {
    const before = Date.now();
    const stamped = Date.parse(isoTimestamp());
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });
});
