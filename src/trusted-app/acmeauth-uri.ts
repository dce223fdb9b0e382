import type { AppEvidenceWanted } from "./app-evidence.ts";

/**
 * The `acmeauth://` URIs the provider shows as QR codes (or links) and the trusted app reads (DESIGN
 * "The trusted app"). The QR codes name the provider (its issuer, so the app talks only to the
 * provider it enrolled with) and carry one random value:
 *
 *   acmeauth://enroll?issuer=<issuer>&token=<one-time enrollment token>
 *   acmeauth://login?issuer=<issuer>&challenge=<scan token of a login QR>[&req=gps,faceid]
 *   acmeauth://bfido?issuer=<issuer>&challenge=<WebAuthn challenge of a must_bfido login>
 *   acmeauth://sso/oidc?<authorize params>          (the app-side entry: acmeauth-sso.ts)
 *
 * `req` lists what the app must measure and sign into its scan (acr_values app_gps / app_faceid).
 */
/** Where the provider serves the device API the app calls (relative to the issuer in the URIs). */
export const DEVICE_API_PATH = "/app";
/** Where the bfido method serves the app's FIDO2 registration and QR answers (flows/methods/bfido/bfido-routes.ts). */
export const BFIDO_API_PATH = "/methods/bfido";

export type AcmeAuthUri =
  | { kind: "enroll"; issuer: string; token: string }
  | { kind: "login"; issuer: string; challenge: string; wants: AppEvidenceWanted }
  | { kind: "bfido"; issuer: string; challenge: string }
  | { kind: "sso"; params: URLSearchParams };

const SCHEME = "acmeauth:";
// Our random values are base64url; anything else in a scanned code is not ours.
const RANDOM_VALUE = /^[A-Za-z0-9_-]{16,128}$/;
const REQ_VALUES = ["gps", "faceid"] as const;

export function enrollUri(issuer: string, token: string): string {
  return `acmeauth://enroll?${new URLSearchParams({ issuer, token })}`;
}

export function loginUri(issuer: string, challenge: string, wants?: AppEvidenceWanted): string {
  const req = REQ_VALUES.filter((name) => wants?.[name]).join(",");
  return `acmeauth://login?${new URLSearchParams({ issuer, challenge, ...(req && { req }) })}`;
}

export function bfidoUri(issuer: string, challenge: string): string {
  return `acmeauth://bfido?${new URLSearchParams({ issuer, challenge })}`;
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
  if (url.host === "sso") return url.pathname === "/oidc" ? { kind: "sso", params: url.searchParams } : undefined;
  const issuer = url.searchParams.get("issuer");
  if (!issuer || !/^https?:\/\//.test(issuer)) return undefined;
  const random = (name: string) => {
    const value = url.searchParams.get(name);
    return value && RANDOM_VALUE.test(value) ? value : undefined;
  };
  if (url.host === "enroll") {
    const token = random("token");
    return token ? { kind: "enroll", issuer, token } : undefined;
  }
  const challenge = random("challenge");
  if (!challenge) return undefined;
  if (url.host === "bfido") return { kind: "bfido", issuer, challenge };
  if (url.host !== "login") return undefined;
  const req = (url.searchParams.get("req") ?? "").split(",");
  return { kind: "login", issuer, challenge, wants: { gps: req.includes("gps"), faceid: req.includes("faceid") } };
}
