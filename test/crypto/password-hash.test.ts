import { describe, expect, it } from "vitest";
import { hashPassword, isPasswordHash, verifyPassword } from "../../src/crypto/password-hash.ts";

describe("password hash", () => {
  it("produces a scrypt PHC string with a fresh salt each time", async () => {
    const [a, b] = await Promise.all([hashPassword("alice-password"), hashPassword("alice-password")]);
    expect(a).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(isPasswordHash(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it("verifies the password it hashed", async () => {
    const phc = await hashPassword("correct horse ✓");
    expect(await verifyPassword("correct horse ✓", phc)).toBe(true);
  });

  it("verifies the demo users' hashes", async () => {
    const alice = "$scrypt$ln=15,r=8,p=1$JiopemWLrXtnOMOYPC8XFw$WjYRk9IQmRS46UxLldBZmU2/4cEsXFMuPMb34VrdxBA";
    expect(await verifyPassword("alice-password", alice)).toBe(true);
    expect(await verifyPassword("bob-password", alice)).toBe(false);
  });

  it("rejects a wrong password", async () => {
    const phc = await hashPassword("right");
    expect(await verifyPassword("wrong", phc)).toBe(false);
    expect(await verifyPassword("", phc)).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["not PHC", "plain-text-password"],
    ["other algorithm", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"],
    ["truncated hash (decodes to nothing)", "$scrypt$ln=15,r=8,p=1$JiopemWLrXtnOMOYPC8XFw$A"],
    ["N out of range", "$scrypt$ln=40,r=8,p=1$JiopemWLrXtnOMOYPC8XFw$WjYRk9IQmRS46UxLldBZmU2/4cEsXFMuPMb34VrdxBA"],
    ["r = 0", "$scrypt$ln=15,r=0,p=1$JiopemWLrXtnOMOYPC8XFw$WjYRk9IQmRS46UxLldBZmU2/4cEsXFMuPMb34VrdxBA"],
    [
      "cost beyond the cap (ln=21: would allocate GiBs)",
      "$scrypt$ln=21,r=8,p=1$JiopemWLrXtnOMOYPC8XFw$WjYRk9IQmRS46UxLldBZmU2/4cEsXFMuPMb34VrdxBA",
    ],
  ])("returns false, never throws, for a malformed hash (%s)", async (_label, phc) => {
    await expect(verifyPassword("anything", phc)).resolves.toBe(false);
  });
});
