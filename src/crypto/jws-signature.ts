import { sign, verify } from "node:crypto";
import { type CryptoKeyInput, SIGNING_DIGEST, type SigningAlg } from "./signing-alg.ts";

/**
 * A JWS signature made or checked with node:crypto, for any of our algorithms.
 *
 * ES256 goes through DER: a JWS carries ECDSA signatures as the raw r‖s (RFC 7518 §3.4), which node:crypto
 * produces and reads when given `{ key, dsaEncoding: "ieee-p1363" }`, but any options object costs node a
 * key-type check per call, measured at about 40 µs of a 130 µs verification and 45 µs of an 80 µs
 * signature. So the key goes in as the KeyObject itself (cryptoKeyInput), node signs and verifies DER, and
 * the two encodings are converted here, which costs a few microseconds.
 */
export function signJws(alg: SigningAlg, key: CryptoKeyInput, signingInput: Buffer): Buffer {
  const signature = sign(SIGNING_DIGEST, signingInput, key);
  return alg === "ES256" ? derToRaw(signature) : signature;
}

/** Whether `signature` (as the JWS carries it) is `key`'s over `signingInput`; a malformed signature is simply not. */
export function verifyJws(alg: SigningAlg, key: CryptoKeyInput, signingInput: Buffer, signature: Buffer): boolean {
  if (alg !== "ES256") return verify(SIGNING_DIGEST, signingInput, key, signature);
  const der = rawToDer(signature);
  return der !== undefined && verify(SIGNING_DIGEST, signingInput, key, der);
}

/** P-256's r and s are 32 bytes each. */
const COORDINATE_BYTES = 32;
const DER_SEQUENCE = 0x30;
const DER_INTEGER = 0x02;

/** r‖s as a DER SEQUENCE of two INTEGERs; undefined unless it is exactly 64 bytes (what ieee-p1363 verification requires too). */
export function rawToDer(raw: Buffer): Buffer | undefined {
  if (raw.length !== 2 * COORDINATE_BYTES) return undefined;
  const r = derInteger(raw.subarray(0, COORDINATE_BYTES));
  const s = derInteger(raw.subarray(COORDINATE_BYTES));
  // At most 2 × (2 + 33) = 70 content bytes: the short length form always fits.
  return Buffer.concat([Buffer.from([DER_SEQUENCE, r.length + s.length]), r, s]);
}

/** An unsigned big-endian number as a DER INTEGER: no leading zero bytes, but one when the top bit is set (else it reads negative). */
function derInteger(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length - 1 && unsigned[start] === 0) start++;
  const digits = unsigned.subarray(start);
  const pad = digits[0]! >= 0x80 ? 1 : 0;
  const out = Buffer.alloc(2 + pad + digits.length);
  out[0] = DER_INTEGER;
  out[1] = pad + digits.length;
  digits.copy(out, 2 + pad);
  return out;
}

/** node:crypto's DER ECDSA signature as r‖s, each left-padded to 32 bytes. */
export function derToRaw(der: Buffer): Buffer {
  const raw = Buffer.alloc(2 * COORDINATE_BYTES);
  // SEQUENCE, its length, then two INTEGERs, each a tag, a length and the digits (node writes short lengths for P-256).
  let offset = 2;
  for (const at of [0, COORDINATE_BYTES]) {
    const length = der[offset + 1]!;
    let digits = der.subarray(offset + 2, offset + 2 + length);
    if (digits.length > COORDINATE_BYTES) digits = digits.subarray(digits.length - COORDINATE_BYTES);
    digits.copy(raw, at + COORDINATE_BYTES - digits.length);
    offset += 2 + length;
  }
  return raw;
}
