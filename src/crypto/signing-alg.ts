import { constants, generateKeyPair, type KeyObject, type SignKeyObjectInput, type VerifyKeyObjectInput } from "node:crypto";
import { promisify } from "node:util";

const generateKeyPairAsync = promisify(generateKeyPair);

/**
 * The JWS algorithms the provider signs with (RFC 7518 §3): RS256 for every client that names none
 * (OIDC Core's default, and what every token was before), PS256 and ES256 for a client that asks
 * (FAPI 2.0 refuses RS256). All three hash with SHA-256, so at_hash is the same for each.
 */
export const SIGNING_ALGS = ["RS256", "PS256", "ES256"] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];
export const DEFAULT_SIGNING_ALG: SigningAlg = "RS256";

export function isSigningAlg(value: unknown): value is SigningAlg {
  return (SIGNING_ALGS as readonly unknown[]).includes(value);
}

/** The digest node:crypto's sign and verify take for every algorithm above. */
export const SIGNING_DIGEST = "sha256";

/** What node:crypto's sign and verify take for one key: the KeyObject itself, or it with the algorithm's options. */
export type CryptoKeyInput = KeyObject | (SignKeyObjectInput & VerifyKeyObjectInput);

/**
 * How node:crypto signs or verifies `alg` with `key`: PSS with a salt as long as the digest (RFC 7518
 * §3.5); RS256 and ES256 need no options and get the KeyObject itself, since an options object costs node
 * a key-type check on every signature, on the token endpoint's hot path (ES256's r‖s encoding is handled
 * by jws-signature.ts instead). Built once per key and kept, so a signature never rebuilds it.
 */
export function cryptoKeyInput(alg: SigningAlg, key: KeyObject): CryptoKeyInput {
  if (alg === "PS256") return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
  return key;
}

/** A new private key for `alg`: RSA of the configured size for RS256 and PS256 (never shared between the two: a JWK names one alg), P-256 for ES256. */
export async function generateSigningKey(alg: SigningAlg, modulusLength: number): Promise<KeyObject> {
  const { privateKey } =
    alg === "ES256" ? await generateKeyPairAsync("ec", { namedCurve: "P-256" }) : await generateKeyPairAsync("rsa", { modulusLength });
  return privateKey;
}

/**
 * The algorithm a private key signs with: `declared` when the key can, else the key's own (an RSA key
 * RS256, a P-256 key ES256). A key that cannot sign the declared algorithm, or any of ours, is a
 * reason in words, never the algorithm.
 */
export function signingAlgOfKey(key: KeyObject, declared?: SigningAlg): { alg: SigningAlg } | { problem: string } {
  const type = key.asymmetricKeyType;
  if (type === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== "prime256v1") return { problem: `is an EC key on ${curve ?? "an unknown curve"}; only P-256 (ES256) is supported` };
    if (declared !== undefined && declared !== "ES256") return { problem: `is an EC P-256 key, which signs ES256, not ${declared}` };
    return { alg: "ES256" };
  }
  if (type === "rsa") {
    if (declared === "ES256") return { problem: "is an RSA key, which signs RS256 or PS256, not ES256" };
    return { alg: declared ?? DEFAULT_SIGNING_ALG };
  }
  return { problem: `must be an RSA or EC P-256 key, not ${type ?? "this kind of key"}` };
}
