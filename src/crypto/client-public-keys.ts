import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { algorithmsFor, checkPublicJwk, type ClientAssertionAlgorithm } from "./client-jwk.ts";

/** One public key of a private_key_jwt client, parsed once, with the algorithms it may verify. */
export interface ClientPublicKey {
  readonly kid: string | undefined;
  readonly key: KeyObject;
  readonly algorithms: readonly ClientAssertionAlgorithm[];
}

/** Most keys taken from one JWK Set: a client rotating keys publishes two or three, never hundreds. */
const MAX_KEYS = 20;

/**
 * The usable signing keys of a JWK Set. A key that is private, unusable, not for signatures (`use` other
 * than sig) or of a kind no accepted algorithm fits is left out rather than failing the set: a client's
 * jwks_uri may publish encryption keys beside its signing keys.
 */
export function parsePublicKeys(jwks: unknown): ClientPublicKey[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return [];
  const parsed: ClientPublicKey[] = [];
  for (const jwk of keys.slice(0, MAX_KEYS)) {
    if (typeof jwk !== "object" || jwk === null) continue;
    const member = jwk as Record<string, unknown>;
    if ((member.use !== undefined && member.use !== "sig") || checkPublicJwk(member) !== undefined) continue;
    const key = createPublicKey({ key: member as JsonWebKey, format: "jwk" });
    const algorithms = typeof member.alg === "string" ? algorithmsFor(key).filter((a) => a === member.alg) : algorithmsFor(key);
    parsed.push({ kid: typeof member.kid === "string" ? member.kid : undefined, key, algorithms });
  }
  return parsed;
}

/** Where a private_key_jwt party's (a client's, an API resource's) public keys are: parsed from its config, or published at its jwks_uri. */
export type PublicKeySource = { readonly inline: readonly ClientPublicKey[] } | { readonly uri: string };

/** The key source a config entry declares with `jwks` or `jwks_uri`; undefined with neither. */
export function publicKeySource(entry: { jwks?: unknown; jwks_uri?: string }): PublicKeySource | undefined {
  if (entry.jwks !== undefined) return { inline: parsePublicKeys(entry.jwks) };
  return entry.jwks_uri !== undefined ? { uri: entry.jwks_uri } : undefined;
}
