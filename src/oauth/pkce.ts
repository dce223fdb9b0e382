import { hash, timingSafeEqual } from "node:crypto";
import { constantTimeEqual } from "../crypto/constant-time-equal.ts";

export type PkceMethod = "S256" | "plain";

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isCodeVerifier(verifier: string): boolean {
  return CODE_VERIFIER.test(verifier);
}

/** RFC 7636 §4.2: the S256 challenge of a verifier, BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256Challenge(verifier: string): string {
  return hash("sha256", verifier, "base64url"); // the verifier syntax is ASCII only, so UTF-8 is ASCII here
}

/**
 * RFC 7636 §4.6: does `verifier` prove possession for `challenge`? A verifier of the wrong syntax never
 * does (even with plain, where it would otherwise only be compared). The comparison is constant-time, so
 * the answer's timing says nothing about how much of a guess was right.
 */
export function verifyPkce(challenge: string, method: PkceMethod, verifier: string): boolean {
  if (!isCodeVerifier(verifier)) return false;
  if (method === "plain") return constantTimeEqual(verifier, challenge);
  // S256: the expected side is always 43 base64url characters, so a challenge of another length matches
  // no verifier at all and the length check leaks nothing a guess could use; comparing the two as they
  // are saves the two SHA-256s constantTimeEqual spends on making lengths equal.
  const expected = Buffer.from(s256Challenge(verifier), "latin1");
  const presented = Buffer.from(challenge, "latin1");
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}
