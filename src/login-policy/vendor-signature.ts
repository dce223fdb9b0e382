import { hash } from "node:crypto";
import { constantTimeEqual } from "../crypto/constant-time-equal.ts";

/**
 * The MyVendor `signature` (SPEC "login_type rules" 4; DESIGN: lowercase hex SHA-1 of the UTF-8
 * concatenation redirect_uri + login_hint + the client's signing key).
 *
 * SHA-1 and plain concatenation are the spec's, not a choice: the concatenation has no separators, so
 * characters can move between redirect_uri and login_hint without changing the signed string. What
 * closes that is checked before this: redirect_uri must be one of the client's registered URIs
 * (exact match) and login_hint must start with `<client_id>:` naming this client — a shifted pair
 * breaks one of the two (docs/decisions.md, "MyVendor").
 */
export function vendorSignature(redirectUri: string, loginHint: string, signingKey: string): string {
  return hash("sha1", `${redirectUri}${loginHint}${signingKey}`, "hex");
}

const HEX_SHA1 = /^[0-9a-fA-F]{40}$/;

/** Whether `presented` is the signature of this request, compared without regard to hex case, in constant time. */
export function isVendorSignatureValid(presented: string, redirectUri: string, loginHint: string, signingKey: string): boolean {
  if (!HEX_SHA1.test(presented)) return false;
  return constantTimeEqual(presented.toLowerCase(), vendorSignature(redirectUri, loginHint, signingKey));
}
