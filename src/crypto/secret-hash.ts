import { createHash, timingSafeEqual } from "node:crypto";

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
  // Check the whole format: Buffer.from(…, "hex") silently stops at the first non-hex character.
  const match = STORED_HASH.exec(storedHash);
  if (!match) return false;
  const expected = Buffer.from(match[1]!, "hex");
  const actual = createHash("sha256").update(presented, "utf8").digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
