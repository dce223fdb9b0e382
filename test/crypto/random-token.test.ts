import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { randomToken } from "../../src/crypto/random-token.ts";

const BASE64URL = /^[A-Za-z0-9_-]+$/;

describe("randomToken", () => {
  it("gives base64url tokens of the asked size, never the same bytes twice, across pool refills", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 16, max: 256 }), { minLength: 50, maxLength: 400 }), (sizes) => {
        const tokens = sizes.map((size) => randomToken(size));
        tokens.forEach((token, i) => {
          expect(token).toMatch(BASE64URL);
          expect(Buffer.from(token, "base64url")).toHaveLength(sizes[i]!);
        });
        // Overlapping or repeated pool bytes would show as equal 16-byte prefixes.
        const prefixes = tokens.map((token) => Buffer.from(token, "base64url").subarray(0, 16).toString("hex"));
        expect(new Set(prefixes).size).toBe(tokens.length);
      }),
      { numRuns: 30 },
    );
  });

  it("has roughly uniform bits", () => {
    // Each token decoded on its own: a 32-byte token's 43 characters end in 2 padding bits.
    const bytes = Buffer.concat(Array.from({ length: 2000 }, () => Buffer.from(randomToken(32), "base64url")));
    let ones = 0;
    for (const byte of bytes) for (let bit = 0; bit < 8; bit++) ones += (byte >> bit) & 1;
    // 512,000 bits: the share of ones is 0.5 ± 0.002 (over 5 standard deviations) for a uniform source.
    expect(Math.abs(ones / (bytes.length * 8) - 0.5)).toBeLessThan(0.004);
  });

  it("refuses sizes too small to be unguessable", () => {
    expect(() => randomToken(8)).toThrow(RangeError);
    expect(() => randomToken(16.5)).toThrow(RangeError);
  });
});
