import { createHash, hash } from "node:crypto";

/**
 * Client secrets and ApiSecrets are high-entropy, so a single SHA-256 is the right hash: it keeps the
 * token endpoint fast and a leaked config file still does not reveal them. Format: `sha256:<hex>`.
 */
export function hashSecret(secret: string): string {
  return `sha256:${createHash("sha256").update(secret, "utf8").digest("hex")}`;
}

const STORED_HASH = /^sha256:([0-9a-f]{64})$/;

/**
 * Constant-time check of a presented secret against a stored `sha256:<hex>` hash; false for a malformed
 * hash. The two digests are compared as base64url text: `hash(…, "base64url")` costs a third of a
 * digest as a Buffer (no Buffer to allocate), on every token request. Comparing digests, not secrets,
 * already leaves a timing attack nothing to learn; the comparison is constant-time all the same.
 */
export function verifySecret(presented: string, storedHash: string): boolean {
  const expected = storedDigest(storedHash);
  if (expected === null) return false;
  return equalDigests(hash("sha256", presented, "base64url"), expected);
}

/** Two SHA-256 digests in base64url (43 characters each), compared without an early exit. */
function equalDigests(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

// Stored hashes come from configuration, so this cache is as small as the client list; parsing the
// hex once per client keeps client authentication to one SHA-256 on the token endpoint's hot path.
const digests = new Map<string, string | null>();

function storedDigest(storedHash: string): string | null {
  let digest = digests.get(storedHash);
  if (digest === undefined) {
    // Check the whole format: Buffer.from(…, "hex") silently stops at the first non-hex character.
    const match = STORED_HASH.exec(storedHash);
    digest = match ? Buffer.from(match[1]!, "hex").toString("base64url") : null;
    if (digests.size < 10_000) digests.set(storedHash, digest);
  }
  return digest;
}
