import { errors } from "jose";
import { verifyJws } from "../crypto/jws-signature.ts";
import { isSigningAlg } from "../crypto/signing-alg.ts";
import type { VerificationKey } from "./key-set.ts";

/**
 * Verifies a compact JWT (one we signed, a DPoP proof or a client assertion; RS256, PS256 or ES256)
 * synchronously with node:crypto and returns its header and claims set. The token's alg must be exactly
 * the one its key is published with: a key never verifies under another algorithm (RFC 8725 §3.1), so
 * an RS256 key cannot be made to check a PS256 or HS256 signature, and `none` is never an algorithm.
 *
 * Why not jose: jwtVerify checks RSA through WebCrypto, a libuv thread-pool job, which was ~56% of a
 * userinfo request (~79 µs) against ~23 µs for crypto.verify on a KeyObject (docs/decisions.md).
 * So this is jose's compact JWS verification, and the JWT part of jwtVerify, redone step by step in
 * jose's order. It fails with jose's own error classes, so jose-errors.ts gives every rejection the
 * description it had under jose; test/tokens/access-token-verifier-vs-jose.test.ts holds the two
 * together on valid, tampered, forged and garbage tokens.
 *
 * One rule is deliberately stricter than jose: each segment must be canonical base64url (A–Z a–z 0–9
 * - _, no padding, no whitespace, zero unused bits). jose's decoder is forgiving, so it also accepts
 * one of our tokens with "==", a space, or a different last character on its signature. We never
 * issue such a token, and one token should have one spelling.
 *
 * Not repeated from jose: its refusal of RSA keys under 2048 bits. Our keys are generated with 2048+
 * bits and configured static keys are refused below that (config/provider-rules.ts).
 */
export function verifyJwt(token: string, keyFor: (header: JoseHeader) => VerificationKey | undefined): VerifiedJwt {
  const segments = token.split(".");
  if (segments.length !== 3) throw new errors.JWSInvalid("Invalid Compact JWS");
  const [encodedHeader, encodedPayload, encodedSignature] = segments as [string, string, string];
  const headerBytes = decodeBase64url(encodedHeader);
  const payloadBytes = decodeBase64url(encodedPayload);
  const signature = decodeBase64url(encodedSignature);

  const header = parseJsonObject(headerBytes, () => new errors.JWSInvalid("JWS Protected Header is invalid"));
  const payloadIsEncoded = checkCritical(header);
  if (typeof header.alg !== "string" || header.alg === "")
    throw new errors.JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  // Only what we sign with, and never a choice left to the token (alg none, HS256 keyed with our public key).
  if (!isSigningAlg(header.alg)) throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  const key = keyFor(header);
  if (key === undefined) throw new errors.JWKSNoMatchingKey();
  // The key's own algorithm, not the token's: a PS256 header on an RS256 key's kid is refused unchecked.
  if (header.alg !== key.alg) throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');

  // The signing input is the header and payload exactly as they appear in the token (ASCII, checked above).
  const signingInput = Buffer.from(`${encodedHeader}.${encodedPayload}`, "latin1");
  if (!verifyJws(key.alg, key.input, signingInput, signature)) throw new errors.JWSSignatureVerificationFailed();
  if (!payloadIsEncoded) throw new errors.JWTInvalid("JWTs MUST NOT use unencoded payload");
  const claims = parseJsonObject(payloadBytes, () => new errors.JWTInvalid("JWT Claims Set must be a top-level JSON object"));
  return { header, claims };
}

export type JoseHeader = Record<string, unknown>;

export interface VerifiedJwt {
  header: JoseHeader;
  claims: Record<string, unknown>;
}

/** The bytes of a canonical base64url string: what Buffer decodes must encode back to the same text (Buffer alone skips bad characters). */
function decodeBase64url(segment: string): Buffer {
  const bytes = Buffer.from(segment, "base64url");
  if (bytes.toString("base64url") !== segment) throw new errors.JWSInvalid("JWS segments must be canonical base64url");
  return bytes;
}

/** jose's decoder: strict UTF-8 that drops a leading byte order mark (Buffer's toString would keep it, and JSON.parse refuse it). */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A JSON object (never an array or a scalar), as jose requires of both the header and the claims set. */
function parseJsonObject(bytes: Uint8Array, invalid: () => Error): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    throw invalid();
  }
  // JSON.parse makes only plain objects and arrays, so this is jose's isObject for its output.
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid();
  return value as Record<string, unknown>;
}

/**
 * jose's `crit` rules (RFC 7515 §4.1.11) with no extensions of ours: "b64" (RFC 7797) is the one it
 * understands, any other is refused as unsupported. Returns whether the payload is base64url-encoded;
 * `b64: false` passes here and is refused after the signature check, as in jwtVerify.
 */
function checkCritical(header: JoseHeader): boolean {
  const { crit } = header;
  if (crit === undefined) return true;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => typeof name !== "string" || name === "")) {
    throw new errors.JWSInvalid('"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present');
  }
  for (const name of crit as string[]) {
    if (name !== "b64") throw new errors.JOSENotSupported(`Extension Header Parameter "${name}" is not recognized`);
    if (!Object.hasOwn(header, name)) throw new errors.JWSInvalid(`Extension Header Parameter "${name}" is missing`);
  }
  if (typeof header.b64 !== "boolean")
    throw new errors.JWSInvalid('The "b64" (base64url-encode payload) Header Parameter must be a boolean');
  return header.b64;
}
