import { createHash, hash, timingSafeEqual } from "node:crypto";

/**
 * Client secrets and ApiSecrets are high-entropy, so a single SHA-256 is the right hash: it keeps the
 * token endpoint fast and a leaked config file still does not reveal them. Format: `sha256:<hex>`.
 */
export function hashSecret(secret: string): string {
  return `sha256:${createHash("sha256").update(secret, "utf8").digest("hex")}`;
}

const STORED_HASH = /^sha256:([0-9a-f]{64})$/;

/** Constant-time check of a presented secret against a stored `sha256:<hex>` hash; false for a malformed hash. */
export function verifySecret(presented: string, storedHash: string): boolean {
  const expected = storedDigest(storedHash);
  if (!expected) return false;
  const actual = hash("sha256", presented, "buffer");
  return timingSafeEqual(expected, actual);
}

// Stored hashes come from configuration, so this cache is as small as the client list; parsing the
// hex once per client keeps client authentication to one SHA-256 on the token endpoint's hot path.
const digests = new Map<string, Buffer | null>();

function storedDigest(storedHash: string): Buffer | null {
  let digest = digests.get(storedHash);
  if (digest === undefined) {
    // Check the whole format: Buffer.from(…, "hex") silently stops at the first non-hex character.
    const match = STORED_HASH.exec(storedHash);
    digest = match ? Buffer.from(match[1]!, "hex") : null;
    if (digests.size < 10_000) digests.set(storedHash, digest);
  }
  return digest;
}
