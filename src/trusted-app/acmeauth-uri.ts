/**
 * The `acmeauth://` URIs the provider shows as QR codes and the trusted app reads (DESIGN "The trusted
 * app"): each names the provider (its issuer, so the app talks only to the provider it enrolled with)
 * and carries one random value.
 *
 *   acmeauth://enroll?issuer=<issuer>&token=<one-time enrollment token>
 *   acmeauth://login?issuer=<issuer>&challenge=<scan token of a login QR>
 */
/** Where the provider serves the device API the app calls (relative to the issuer in the URIs). */
export const DEVICE_API_PATH = "/app";

export type AcmeAuthUri = { kind: "enroll"; issuer: string; token: string } | { kind: "login"; issuer: string; challenge: string };

const SCHEME = "acmeauth:";
// Our random values are base64url; anything else in a scanned code is not ours.
const RANDOM_VALUE = /^[A-Za-z0-9_-]{16,128}$/;

export function enrollUri(issuer: string, token: string): string {
  return `acmeauth://enroll?${new URLSearchParams({ issuer, token })}`;
}

export function loginUri(issuer: string, challenge: string): string {
  return `acmeauth://login?${new URLSearchParams({ issuer, challenge })}`;
}

/** Reads a scanned URI; undefined for anything that is not one of ours (the app ignores it). */
export function parseAcmeAuthUri(text: string): AcmeAuthUri | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== SCHEME) return undefined;
  const issuer = url.searchParams.get("issuer");
  if (!issuer || !/^https?:\/\//.test(issuer)) return undefined;
  if (url.host === "enroll") {
    const token = url.searchParams.get("token");
    return token && RANDOM_VALUE.test(token) ? { kind: "enroll", issuer, token } : undefined;
  }
  if (url.host === "login") {
    const challenge = url.searchParams.get("challenge");
    return challenge && RANDOM_VALUE.test(challenge) ? { kind: "login", issuer, challenge } : undefined;
  }
  return undefined;
}
