import { createHash, createPublicKey, type KeyObject, type JsonWebKey } from "node:crypto";
import {
  type CryptoKeyInput,
  cryptoKeyInput,
  DEFAULT_SIGNING_ALG,
  SIGNING_ALGS,
  signingAlgOfKey,
  type SigningAlg,
} from "../crypto/signing-alg.ts";

export type KeyStatus = "next" | "current" | "retired";

export interface KeyEntry {
  readonly kid: string;
  readonly status: KeyStatus;
  readonly privateKey: KeyObject;
  /** The one algorithm the key signs and verifies; absent: RS256 (every key before there were others). */
  readonly alg?: SigningAlg;
}

/** A key that signs: its algorithm and node:crypto's input for it, built once per snapshot. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly input: CryptoKeyInput;
}

/** A published key as a verifier uses it: a token must name exactly this alg. */
export interface VerificationKey {
  readonly alg: SigningAlg;
  readonly publicKey: KeyObject;
  readonly input: CryptoKeyInput;
}

/** `publicKey` as the verifier of `alg` (ours, a DPoP proof's or a client's key). */
export function verificationKeyOf(alg: SigningAlg, publicKey: KeyObject): VerificationKey {
  return { alg, publicKey, input: cryptoKeyInput(alg, publicKey) };
}

export interface PublicJwk extends JsonWebKey {
  kid: string;
  kty: string;
  use: "sig";
  alg: SigningAlg;
}

/**
 * An immutable snapshot of the signing keys: per algorithm, the one `current` key signs; `next`,
 * `current` and `retired` keys are all published (each with its `alg`) and accepted for verification of
 * that algorithm only. The JWKS document is built once per snapshot, and only from public parts.
 */
export class KeySet {
  /** The default algorithm's (RS256's) signing key, or the only algorithm's when static keys have no RS256. */
  readonly signing: SigningKey;
  /** The algorithms with a current key, in SIGNING_ALGS order (RS256 first): what discovery advertises. */
  readonly algorithms: readonly SigningAlg[];
  readonly jwks: { keys: PublicJwk[] };
  readonly jwksJson: string;
  /** Changes whenever the published keys change; caches of derived documents key on it. */
  readonly version: string;
  private readonly signingKeys: ReadonlyMap<SigningAlg, SigningKey>;
  private readonly verificationKeys: ReadonlyMap<string, VerificationKey>;

  constructor(entries: readonly KeyEntry[]) {
    const signingKeys = new Map<SigningAlg, SigningKey>();
    const verificationKeys = new Map<string, VerificationKey>();
    const keys: PublicJwk[] = [];
    for (const e of entries) {
      const alg = e.alg ?? DEFAULT_SIGNING_ALG;
      const fits = signingAlgOfKey(e.privateKey, alg);
      if ("problem" in fits) throw new Error(`signing key ${e.kid} ${fits.problem}`);
      if (e.status === "current") {
        if (signingKeys.has(alg)) throw new Error(`a key set needs exactly one current key per algorithm, got two for ${alg}`);
        signingKeys.set(alg, { kid: e.kid, alg, input: cryptoKeyInput(alg, e.privateKey) });
      }
      const publicKey = createPublicKey(e.privateKey);
      verificationKeys.set(e.kid, verificationKeyOf(alg, publicKey));
      keys.push({ kid: e.kid, use: "sig", alg, ...publicParameters(publicKey) });
    }
    this.algorithms = SIGNING_ALGS.filter((alg) => signingKeys.has(alg));
    const signing = signingKeys.get(DEFAULT_SIGNING_ALG) ?? signingKeys.get(this.algorithms[0]!);
    if (!signing) throw new Error("a key set needs a current key, got none");
    this.signing = signing;
    this.signingKeys = signingKeys;
    this.verificationKeys = verificationKeys;
    this.jwks = { keys };
    this.jwksJson = JSON.stringify(this.jwks);
    this.version = createHash("sha256")
      .update(entries.map((e) => `${e.kid}:${e.status}`).join(","))
      .digest("base64url")
      .slice(0, 16);
  }

  /** The key that signs `alg` now. Throws for an algorithm the set has no key of (config rules keep clients from asking for one). */
  signingKey(alg: SigningAlg): SigningKey {
    const key = this.signingKeys.get(alg);
    if (!key) throw new Error(`no current signing key for ${alg}`);
    return key;
  }

  /** The key, and its one algorithm, for a kid we publish; undefined for any other kid. */
  verificationKey(kid: string): VerificationKey | undefined {
    return this.verificationKeys.get(kid);
  }

  /** The public key for a kid we publish, or undefined for any other kid. */
  publicKey(kid: string): KeyObject | undefined {
    return this.verificationKeys.get(kid)?.publicKey;
  }
}

/** The JWK members of a public key: kty with n and e (RSA) or crv, x and y (EC); never a private member. */
function publicParameters(key: KeyObject): { kty: string } & JsonWebKey {
  const { kty, n, e, crv, x, y } = key.export({ format: "jwk" });
  return kty === "EC" ? { kty, crv: crv!, x: x!, y: y! } : { kty: kty!, e: e!, n: n! };
}
