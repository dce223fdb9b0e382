import { hash } from "node:crypto";
import { calculateJwkThumbprint, type JWK } from "jose";

/** A JWK SHA-256 thumbprint (RFC 7638) as base64url: always 43 characters of [A-Za-z0-9_-]. */
export const JKT_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The RFC 7638 SHA-256 thumbprint of a public key: what `cnf.jkt` and `dpop_jkt` name it by (RFC 9449 §6.1, §10). */
export function jwkThumbprint(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint(jwk, "sha256");
}

/** RFC 9449 §4.2 `ath`: base64url(SHA-256(ASCII(access token))). */
export function accessTokenHash(accessToken: string): string {
  return hash("sha256", accessToken, "base64url");
}
