import { randomBytes } from "node:crypto";
import { FACEID_PASS, type AppEvidence, type AppEvidenceWanted } from "../../trusted-app/app-evidence.ts";

/**
 * What the reference app's "sensors" read: a real app takes a GPS fix and runs its face check when a
 * QR code (or the embedded web view) asks for them; the CLI and the tests say what they would read.
 */
export interface Sensors {
  /** A location fix: latitude and longitude in degrees. */
  gps?: { lat: number; lnt: number };
  /** The face check's outcome. */
  faceid?: "pass" | "fail";
}

const ALL: AppEvidenceWanted = { gps: true, faceid: true };

/**
 * The evidence claims the app signs (app-evidence.ts's shapes), measured at `nowSeconds`, for what is
 * wanted and was read. The face check's `key` is the app's id of that one check (random), so an
 * auditor can find it in the app's own log; it names no face template.
 */
export function measuredClaims(sensors: Sensors, nowSeconds: number, wanted: AppEvidenceWanted = ALL): AppEvidence {
  const claims: AppEvidence = {};
  if (wanted.gps && sensors.gps) claims.gps = { lat: sensors.gps.lat, lnt: sensors.gps.lnt, time: nowSeconds };
  if (wanted.faceid && sensors.faceid)
    claims.faceid = {
      result: sensors.faceid === "pass" ? FACEID_PASS : "fail",
      key: `face-${randomBytes(9).toString("base64url")}`,
      time: nowSeconds,
    };
  return claims;
}

/** Reads the CLI's `--gps LAT,LNT` (degrees); undefined when it is not two numbers. */
export function parseGpsOption(text: string): Sensors["gps"] | undefined {
  const match = /^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*,\s*(-?[0-9]+(?:\.[0-9]+)?)\s*$/.exec(text);
  return match ? { lat: Number(match[1]), lnt: Number(match[2]) } : undefined;
}
