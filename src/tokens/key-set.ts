import { createHash, createPublicKey, type KeyObject, type JsonWebKey } from "node:crypto";

export type KeyStatus = "next" | "current" | "retired";

export interface KeyEntry {
  readonly kid: string;
  readonly status: KeyStatus;
  readonly privateKey: KeyObject;
}

export interface PublicJwk extends JsonWebKey {
  kid: string;
  kty: string;
  use: "sig";
  alg: "RS256";
  e: string;
  n: string;
}

/**
 * An immutable snapshot of the signing keys: the one `current` key signs; `next`, `current` and
 * `retired` keys are all published and accepted for verification. The JWKS document is built once
 * per snapshot, and only from public parts.
 */
export class KeySet {
  readonly signing: KeyEntry;
  readonly jwks: { keys: PublicJwk[] };
  readonly jwksJson: string;
  /** Changes whenever the published keys change; caches of derived documents key on it. */
  readonly version: string;
  private readonly publicKeys: ReadonlyMap<string, KeyObject>;

  constructor(entries: readonly KeyEntry[]) {
    const current = entries.filter((e) => e.status === "current");
    if (current.length !== 1) throw new Error(`a key set needs exactly one current key, got ${current.length}`);
    this.signing = current[0]!;
    const publicKeys = new Map<string, KeyObject>();
    const keys: PublicJwk[] = [];
    for (const e of entries) {
      const pub = createPublicKey(e.privateKey);
      publicKeys.set(e.kid, pub);
      const { n, e: exponent, kty } = pub.export({ format: "jwk" });
      keys.push({ kid: e.kid, kty: kty!, use: "sig", alg: "RS256", e: exponent!, n: n! });
    }
    this.publicKeys = publicKeys;
    this.jwks = { keys };
    this.jwksJson = JSON.stringify(this.jwks);
    this.version = createHash("sha256")
      .update(entries.map((e) => `${e.kid}:${e.status}`).join(","))
      .digest("base64url")
      .slice(0, 16);
  }

  /** The public key for a kid we publish, or undefined for any other kid. */
  publicKey(kid: string): KeyObject | undefined {
    return this.publicKeys.get(kid);
  }
}
