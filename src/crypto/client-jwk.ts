import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";

/**
 * A client's public signing keys for private_key_jwt (RFC 7523): which JWKs are acceptable and which
 * algorithms each may verify. Asymmetric only: a shared-key (HS*) assertion would make the client's
 * "public" key a secret the provider holds, and `none` proves nothing.
 */

/** The assertion algorithms accepted, strongest guarantees first; discovery lists them. */
export const CLIENT_ASSERTION_ALGORITHMS = ["RS256", "PS256", "ES256"] as const;
export type ClientAssertionAlgorithm = (typeof CLIENT_ASSERTION_ALGORITHMS)[number];

/** JWK members that only a private (or symmetric) key has: such a key in the config is a leak, not a public key. */
export const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** The first private (or symmetric) member a JWK holds, or undefined for a public key. */
export function privateJwkMember(jwk: object): string | undefined {
  return PRIVATE_JWK_MEMBERS.find((member) => Object.hasOwn(jwk, member));
}

const MIN_RSA_BITS = 2048;

/** Why a JWK cannot be a client's public signing key, or undefined when it can. */
export function checkPublicJwk(jwk: Record<string, unknown>): string | undefined {
  if (privateJwkMember(jwk) !== undefined) return "holds a private key member";
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
  } catch {
    return "is not a usable public key (check kty, n and e, or crv, x and y)";
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "rsa" && (details.modulusLength ?? 0) < MIN_RSA_BITS) return `is an RSA key under ${MIN_RSA_BITS} bits`;
  if (key.asymmetricKeyType === "ec" && details.namedCurve !== "prime256v1") return "is an EC key on a curve other than P-256";
  if (key.asymmetricKeyType !== "rsa" && key.asymmetricKeyType !== "ec") return "is neither an RSA nor an EC key";
  const alg = jwk.alg;
  if (alg !== undefined && !algorithmsFor(key).includes(alg as ClientAssertionAlgorithm))
    return `its alg ${String(alg)} does not fit the key`;
  return undefined;
}

/**
 * The algorithms a public key may verify: RS256 and PS256 for RSA of at least 2048 bits, ES256 for
 * P-256; none for any other key. One rule for client assertions and DPoP proofs alike.
 */
export function algorithmsFor(key: KeyObject): readonly ClientAssertionAlgorithm[] {
  if (key.asymmetricKeyType === "rsa") return (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS ? ["RS256", "PS256"] : [];
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return ["ES256"];
  return [];
}
