import { hash } from "node:crypto";

/** A JWK SHA-256 thumbprint (RFC 7638) as base64url: always 43 characters of [A-Za-z0-9_-]. */
export const JKT_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 9449 §4.2 `ath`: base64url(SHA-256(ASCII(access token))). */
export function accessTokenHash(accessToken: string): string {
  return hash("sha256", accessToken, "base64url");
}
