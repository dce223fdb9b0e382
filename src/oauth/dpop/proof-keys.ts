import { createPublicKey, hash, type KeyObject } from "node:crypto";
import { algorithmsFor, type ClientAssertionAlgorithm } from "../../crypto/client-jwk.ts";

/** A flood of fresh keys only evicts the oldest: a real client signs every proof with the one key it holds. */
const MAX_KEYS = 10_000;

/** The members of each key type an RFC 7638 thumbprint covers, in its lexicographic order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ["crv", "kty", "x", "y"],
  OKP: ["crv", "kty", "x"],
  RSA: ["e", "kty", "n"],
};

/** A proof's public key, imported, and the thumbprint `cnf.jkt` names it by. */
export interface ProofKey {
  readonly key: KeyObject;
  readonly jkt: string;
  /** The JWS algorithms node:crypto verifies with it (client-jwk.ts: an RSA key of 2048+ bits, or P-256), worked out once. */
  readonly algorithms: readonly ClientAssertionAlgorithm[];
}

/**
 * The public keys embedded in DPoP proofs, each imported once. Importing a JWK costs about as much CPU
 * as verifying the signature, and a client signs every proof with the same key, so a process keeps the
 * keys it has seen. They are keyed by the RFC 7638 thumbprint input (the required members only, in
 * order): two spellings of one key share an entry, and no other key can ever reach it. Only the required
 * members are imported, so nothing else a header carries (`alg`, `use`, `key_ops`) changes what is
 * verified. Which algorithms the key fits is worked out at import too (jose checks it again for EdDSA).
 */
export class ProofKeys {
  readonly #keys = new Map<string, ProofKey>();

  /** The key, imported; throws for a JWK that is not a public EC, OKP or RSA key. */
  keyOf(jwk: Record<string, unknown>): ProofKey {
    const input = thumbprintInput(jwk);
    const known = this.#keys.get(input);
    if (known !== undefined) return known;
    const key = createPublicKey({ key: JSON.parse(input), format: "jwk" });
    const entry = { key, jkt: hash("sha256", input, "base64url"), algorithms: algorithmsFor(key) };
    if (this.#keys.size >= MAX_KEYS) this.#keys.delete(this.#keys.keys().next().value!);
    this.#keys.set(input, entry);
    return entry;
  }
}

/** RFC 7638 §3: the JSON of the required members, lexicographically ordered, with no whitespace. */
function thumbprintInput(jwk: Record<string, unknown>): string {
  const members = typeof jwk.kty === "string" && Object.hasOwn(THUMBPRINT_MEMBERS, jwk.kty) ? THUMBPRINT_MEMBERS[jwk.kty]! : undefined;
  if (members === undefined) throw new TypeError("unsupported key type");
  const required: Record<string, string> = {};
  for (const member of members) {
    const value = jwk[member];
    if (typeof value !== "string" || value === "") throw new TypeError(`missing ${member}`);
    required[member] = value;
  }
  return JSON.stringify(required);
}
