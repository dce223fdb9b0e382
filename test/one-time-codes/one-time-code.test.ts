import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateCode, normaliseCode } from "../../src/one-time-codes/one-time-code.ts";

describe("one-time codes", () => {
  it("are six digits, leading zeros kept, spread over all digits", () => {
    const codes = Array.from({ length: 5000 }, generateCode);
    for (const code of codes) expect(code).toMatch(/^[0-9]{6}$/);
    // Every digit appears in every position over 5000 codes (a constant or narrow generator would not).
    for (let position = 0; position < 6; position++) expect(new Set(codes.map((c) => c[position])).size).toBe(10);
    expect(new Set(codes).size).toBeGreaterThan(4900);
  });

  it("accepts what people type around the six digits, and nothing else", () => {
    expect(normaliseCode("123456")).toBe("123456");
    expect(normaliseCode(" 123 456 ")).toBe("123456");
    expect(normaliseCode("123-456")).toBe("123456");
    for (const bad of ["12345", "1234567", "12345a", "１２３４５６", "", "123456\u0000", undefined, 123456, "1".repeat(40)])
      expect(normaliseCode(bad)).toBeUndefined();
  });

  it("never throws and only ever yields six ASCII digits", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const code = normaliseCode(value);
        return code === undefined || /^[0-9]{6}$/.test(code);
      }),
    );
  });
});
