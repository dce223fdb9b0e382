import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { hashSecret, verifySecret } from "../../src/crypto/secret-hash.ts";

describe("secret hash", () => {
  it("prints sha256:<64 hex>", () => {
    expect(hashSecret("demo-web-secret")).toBe("sha256:6218e017da64a39cf2069bf0961b67c1f405cefd918b1b826b33d1a00b4f3d8c");
  });

  it("verifies the secret it hashed", () => {
    expect(verifySecret("s3cret", hashSecret("s3cret"))).toBe(true);
    expect(verifySecret("", hashSecret(""))).toBe(true);
    expect(verifySecret("pässwörd ✓", hashSecret("pässwörd ✓"))).toBe(true);
  });

  it("accepts exactly the secret that was hashed, for any pair of secrets", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (presented, stored) => {
        expect(verifySecret(presented, hashSecret(stored))).toBe(presented === stored);
        expect(verifySecret(stored, hashSecret(stored))).toBe(true);
      }),
    );
  });

  it("rejects a wrong secret", () => {
    expect(verifySecret("s3cret!", hashSecret("s3cret"))).toBe(false);
    expect(verifySecret("S3CRET", hashSecret("s3cret"))).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["no prefix", hashSecret("s3cret").slice("sha256:".length)],
    ["other prefix", `md5:xyz${hashSecret("s3cret").slice("sha256:".length)}`],
    ["trailing garbage", `${hashSecret("s3cret")}zz`],
    ["truncated", hashSecret("s3cret").slice(0, -2)],
    ["not hex", `sha256:${"g".repeat(64)}`],
  ])("returns false, never throws, for a malformed hash (%s)", (_label, stored) => {
    expect(verifySecret("s3cret", stored)).toBe(false);
  });
});
