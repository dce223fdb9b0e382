import { hash, timingSafeEqual } from "node:crypto";

/**
 * Compares two strings in time that depends on neither their contents nor their lengths: both sides
 * are hashed first, since timingSafeEqual needs equal lengths and a length check would leak. For
 * anything a caller presents against a secret we hold: CSRF tokens, PKCE verifiers, browser bindings.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(hash("sha256", a, "buffer"), hash("sha256", b, "buffer"));
}
