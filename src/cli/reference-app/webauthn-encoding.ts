import { createHash, type KeyObject } from "node:crypto";

/**
 * The bytes a WebAuthn authenticator writes (W3C WebAuthn §6.1, RFC 8949, RFC 9053), for the
 * reference app's software authenticator and the tests' forging one: authenticator data pieces, the
 * COSE key of a P-256 public key, and just enough CBOR for attestation objects.
 */
export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_AT = 0x40;

export const b64u = (bytes: Buffer) => bytes.toString("base64url");
export const rpIdHash = (rpId: string) => createHash("sha256").update(rpId).digest();
export const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest();
export const u16 = (n: number) => Buffer.of(n >> 8, n & 0xff);
export const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** The COSE_Key of a P-256 public key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y. */
export function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  return cbor(
    new Map<unknown, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
}

/** Attested credential data (zero AAGUID, as `none` attestation reports): id length, id, COSE key. */
export function attestedCredentialData(credentialId: string, publicKey: KeyObject): Buffer {
  const idBytes = Buffer.from(credentialId, "base64url");
  return Buffer.concat([Buffer.alloc(16), u16(idBytes.length), idBytes, coseKey(publicKey)]);
}

/** A `none` attestation object around the authenticator data. */
export function noneAttestation(authData: Buffer): Buffer {
  return cbor(
    new Map<unknown, unknown>([
      ["fmt", "none"],
      ["attStmt", new Map()],
      ["authData", authData],
    ]),
  );
}

/** Just enough CBOR (RFC 8949) for attestation objects: integers, byte and text strings, maps. */
export function cbor(value: unknown): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === "string") {
    const text = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`no CBOR for ${typeof value}`);
}

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.of((major << 5) | n);
  if (n < 0x100) return Buffer.of((major << 5) | 24, n);
  if (n < 0x10000) return Buffer.of((major << 5) | 25, n >> 8, n & 0xff);
  throw new Error("CBOR length too large for this encoder");
}
