/**
 * ES256 signatures go to node:crypto as DER and come back as the JWS's r‖s (jws-signature.ts): the
 * conversion must agree with node's own ieee-p1363 encoding both ways, on every signature, and never let a
 * malformed signature through or throw on it.
 */
import { constants, generateKeyPairSync, sign, verify } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { derToRaw, rawToDer, signJws, verifyJws } from "../../src/crypto/jws-signature.ts";
import { cryptoKeyInput } from "../../src/crypto/signing-alg.ts";

const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const P1363 = { dsaEncoding: "ieee-p1363" } as const;
const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
const message = fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes));

/** Whether `der` is a DER SEQUENCE of two INTEGERs written the one canonical way (no spare leading zero, never negative). */
function isCanonicalDer(der: Buffer): boolean {
  if (der[0] !== 0x30 || der[1] !== der.length - 2) return false;
  let offset = 2;
  for (let i = 0; i < 2; i++) {
    const length = der[offset + 1]!;
    const digits = der.subarray(offset + 2, offset + 2 + length);
    if (der[offset] !== 0x02 || length === 0 || digits.length !== length) return false;
    if (digits[0]! >= 0x80) return false;
    if (length > 1 && digits[0] === 0 && digits[1]! < 0x80) return false;
    offset += 2 + length;
  }
  return offset === der.length;
}

describe("ES256 signatures as a JWS carries them", () => {
  it("signs r‖s that node's ieee-p1363 verification accepts, for any message", () => {
    fc.assert(
      fc.property(message, (data) => {
        const signature = signJws("ES256", cryptoKeyInput("ES256", ec.privateKey), data);
        expect(signature).toHaveLength(64);
        expect(verify("sha256", data, { key: ec.publicKey, ...P1363 }, signature)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("verifies exactly what node's ieee-p1363 verification verifies: real signatures, and each with one bit flipped", () => {
    fc.assert(
      fc.property(message, fc.nat({ max: 64 * 8 - 1 }), (data, bit) => {
        const signature = sign("sha256", data, { key: ec.privateKey, ...P1363 });
        expect(verifyJws("ES256", ec.publicKey, data, signature)).toBe(true);
        const flipped = Buffer.from(signature);
        flipped[bit >> 3]! ^= 1 << (bit & 7);
        expect(verifyJws("ES256", ec.publicKey, data, flipped)).toBe(verify("sha256", data, { key: ec.publicKey, ...P1363 }, flipped));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a signature of any other length without throwing", () => {
    const data = Buffer.from("header.payload");
    const signature = sign("sha256", data, { key: ec.privateKey, ...P1363 });
    for (const wrong of [
      Buffer.alloc(0),
      signature.subarray(0, 63),
      Buffer.concat([signature, Buffer.alloc(1)]),
      sign("sha256", data, ec.privateKey),
    ]) {
      expect(verifyJws("ES256", ec.publicKey, data, wrong)).toBe(false);
    }
  });

  it("writes any r‖s as canonical DER and reads it back unchanged, leading zeros and high bits included", () => {
    const coordinate = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      // Short numbers (leading zero bytes) and numbers whose top bit is set, which DER writes differently.
      fc.tuple(fc.integer({ min: 1, max: 32 }), fc.uint8Array({ minLength: 32, maxLength: 32 })).map(([zeros, bytes]) => {
        const out = Uint8Array.from(bytes);
        out.fill(0, 0, zeros);
        return out;
      }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Uint8Array.from(bytes, (b, i) => (i === 0 ? b | 0x80 : b))),
    );
    fc.assert(
      fc.property(coordinate, coordinate, (r, s) => {
        const raw = Buffer.concat([r, s]);
        const der = rawToDer(raw)!;
        expect(isCanonicalDer(der)).toBe(true);
        expect(derToRaw(der).equals(raw)).toBe(true);
      }),
    );
  });

  it("reads node's own DER signatures as the r‖s node writes for ieee-p1363", () => {
    // ECDSA is randomised, so the same signature in both encodings comes from converting one of them; node verifies each.
    fc.assert(
      fc.property(message, (data) => {
        const der = sign("sha256", data, ec.privateKey);
        expect(isCanonicalDer(der)).toBe(true);
        const raw = derToRaw(der);
        expect(verify("sha256", data, { key: ec.publicKey, ...P1363 }, raw)).toBe(true);
        expect(rawToDer(raw)!.equals(der)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("RS256 and PS256 pass through unchanged", () => {
  it("signs and verifies as node:crypto does", () => {
    const data = Buffer.from("header.payload");
    const rs = signJws("RS256", cryptoKeyInput("RS256", rsa.privateKey), data);
    expect(rs.equals(sign("sha256", data, rsa.privateKey))).toBe(true);
    expect(verifyJws("RS256", cryptoKeyInput("RS256", rsa.publicKey), data, rs)).toBe(true);
    const ps = signJws("PS256", cryptoKeyInput("PS256", rsa.privateKey), data);
    expect(verify("sha256", data, { key: rsa.publicKey, ...PSS }, ps)).toBe(true);
    expect(verifyJws("PS256", cryptoKeyInput("PS256", rsa.publicKey), data, ps)).toBe(true);
    // PKCS#1 v1.5 and PSS never stand in for each other.
    expect(verifyJws("RS256", cryptoKeyInput("RS256", rsa.publicKey), data, ps)).toBe(false);
  });
});
