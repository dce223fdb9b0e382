import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SecretBox } from "../../src/crypto/secret-box.ts";
import { encryptionKeyMaterial } from "../../src/crypto/encryption-key.ts";

const box = new SecretBox("correct horse battery staple, and then some more");

describe("secret box", () => {
  it("opens what it sealed, for any text, and never shows the plaintext", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), fc.string({ minLength: 1, maxLength: 30 }), (secret, context) => {
        const sealed = box.seal(secret, context);
        if (secret.length >= 4) expect(sealed).not.toContain(secret);
        expect(box.open(sealed, context)).toBe(secret);
      }),
      { numRuns: 100 },
    );
  });

  it("seals the same text differently each time", () => {
    expect(box.seal("x", "c")).not.toBe(box.seal("x", "c"));
  });

  it("refuses another context, another key, and any altered part", () => {
    const sealed = box.seal("a signing key", "signing-key:k1");
    expect(() => box.open(sealed, "signing-key:k2")).toThrow();
    expect(() => new SecretBox("a different key of at least thirty-two chars").open(sealed, "signing-key:k1")).toThrow();
    const parts = sealed.split(".");
    for (let i = 1; i < parts.length; i++) {
      const altered = [...parts];
      altered[i] = (altered[i]![0] === "A" ? "B" : "A") + altered[i]!.slice(1);
      expect(() => box.open(altered.join("."), "signing-key:k1")).toThrow();
    }
    expect(() => box.open("garbage", "signing-key:k1")).toThrow();
  });

  it("refuses key material shorter than 32 characters", () => {
    expect(() => new SecretBox("short")).toThrow();
  });
});

describe("encryption key material", () => {
  it("uses the configured key when there is one", () => {
    expect(encryptionKeyMaterial("configured-key-material-of-32-characters", "/nonexistent")).toBe(
      "configured-key-material-of-32-characters",
    );
  });

  it("generates a key once under data_dir, readable only by its owner, and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "enc-key-"));
    const first = encryptionKeyMaterial(undefined, dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, "encryption.key")).mode & 0o777).toBe(0o600);
    expect(encryptionKeyMaterial(undefined, dir)).toBe(first);
    expect(readFileSync(join(dir, "encryption.key"), "utf8").trim()).toBe(first);
  });
});
