import { hash } from "node:crypto";

/**
 * The store key of a bearer secret (code, refresh token, session cookie): its SHA-256, base64url. The
 * store never holds the secret itself, so a dump of it yields nothing usable. One-shot `crypto.hash`
 * is cheaper than a createHash object on these hot paths.
 */
export function storeKeyHash(secret: string): string {
  return hash("sha256", secret, "base64url");
}
