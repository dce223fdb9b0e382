import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DURATION_UNITS, parseDuration, type DurationUnit } from "../../src/time/duration.ts";

describe("parseDuration", () => {
  it("converts each unit to seconds", () => {
    expect(parseDuration("300s")).toBe(300);
    expect(parseDuration("5m")).toBe(300);
    expect(parseDuration("8h")).toBe(28_800);
    expect(parseDuration("30d")).toBe(2_592_000);
    expect(parseDuration("0s")).toBe(0);
  });

  it("is n × the unit's seconds for every whole number and unit", () => {
    const unit = fc.constantFrom(...(Object.keys(DURATION_UNITS) as DurationUnit[]));
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000_000 }), unit, (n, u) => {
        expect(parseDuration(`${n}${u}`)).toBe(n * DURATION_UNITS[u]);
      }),
    );
  });

  it.each(["", "5", "m", "5 m", "-5m", "1.5h", "5M", "5w", " 5m", "5m "])("rejects %j", (text) => {
    expect(() => parseDuration(text)).toThrow(RangeError);
  });

  it("rejects a duration too large to count exactly", () => {
    expect(() => parseDuration("999999999999999999d")).toThrow(/too large/);
  });

  it("never throws anything but a RangeError", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          expect(Number.isSafeInteger(parseDuration(text))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
        }
      }),
    );
  });
});
