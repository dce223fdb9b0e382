/** PKCE verification (RFC 7636 §4.1, §4.6): verifier syntax, S256 and plain. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCodeVerifier, s256Challenge, verifyPkce } from "../../src/oauth/pkce.ts";

// RFC 7636 Appendix B.
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
const verifierArb = fc.string({ unit: fc.constantFrom(...UNRESERVED), minLength: 43, maxLength: 128 });

describe("PKCE", () => {
  it("computes the S256 challenge of RFC 7636 Appendix B", () => {
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  });

  it("accepts the Appendix B verifier for its S256 challenge", () => {
    expect(verifyPkce(CHALLENGE, "S256", VERIFIER)).toBe(true);
  });

  it("rejects a wrong verifier, and the challenge itself sent as the S256 verifier", () => {
    expect(verifyPkce(CHALLENGE, "S256", VERIFIER.replace("d", "e"))).toBe(false);
    expect(verifyPkce(CHALLENGE, "S256", CHALLENGE)).toBe(false);
  });

  it("compares plain verifiers exactly, case included", () => {
    expect(verifyPkce(VERIFIER, "plain", VERIFIER)).toBe(true);
    expect(verifyPkce(VERIFIER, "plain", VERIFIER.toUpperCase())).toBe(false);
  });

  it.each([
    ["42 characters", "a".repeat(42)],
    ["129 characters", "a".repeat(129)],
    ["a space", `${"a".repeat(42)} `],
    ["a '+'", `${"a".repeat(42)}+`],
    ["a '/'", `${"a".repeat(42)}/`],
    ["a '='", `${"a".repeat(42)}=`],
    ["a non-ASCII letter", `${"a".repeat(42)}é`],
  ])("refuses a verifier with %s, even for plain where it equals the challenge", (_name, verifier) => {
    expect(isCodeVerifier(verifier)).toBe(false);
    expect(verifyPkce(verifier, "plain", verifier)).toBe(false);
    expect(verifyPkce(s256Challenge(verifier), "S256", verifier)).toBe(false);
  });

  it("accepts every well-formed verifier for its own challenge and no other", () => {
    fc.assert(
      fc.property(verifierArb, verifierArb, (verifier, other) => {
        expect(isCodeVerifier(verifier)).toBe(true);
        expect(verifyPkce(s256Challenge(verifier), "S256", verifier)).toBe(true);
        expect(verifyPkce(verifier, "plain", verifier)).toBe(true);
        fc.pre(other !== verifier);
        expect(verifyPkce(s256Challenge(verifier), "S256", other)).toBe(false);
        expect(verifyPkce(verifier, "plain", other)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
