import { DEVICE_JWS_SKEW_SECONDS } from "./device-jws.ts";

/**
 * The trusted app's evidence (acr_values app_gps / app_faceid): what the app measured on the phone,
 * carried in a device-signed JWS (a QR scan or a silent-login token) under the very claim shapes the
 * ID token gets (SPEC "Claims"):
 *
 *   gps:    { lat: number in [-90, 90], lnt: number in [-180, 180], time: Unix seconds }
 *   faceid: { result: "pass", key: string, time: Unix seconds }
 *
 * `time` is when the app took the fix or ran the face check: it must be as fresh as the JWS itself
 * (within DEVICE_JWS_SKEW_SECONDS of now either way), so an old fix cannot be replayed in a new JWS.
 */
export interface AppEvidenceWanted {
  gps: boolean;
  faceid: boolean;
}

export interface GpsEvidence {
  lat: number;
  lnt: number;
  time: number;
}

export interface FaceidEvidence {
  result: string;
  key: string;
  time: number;
}

/** Only what was wanted: evidence the request did not ask for is not kept (it is personal data). */
export interface AppEvidence {
  gps?: GpsEvidence;
  faceid?: FaceidEvidence;
}

/** Which requirement failed, for the login page's message. */
export type AppEvidenceProblem = "gps" | "faceid";

export type AppEvidenceCheck = { ok: true; evidence: AppEvidence } | { ok: false; problem: AppEvidenceProblem; description: string };

export const NO_APP_EVIDENCE: AppEvidenceWanted = { gps: false, faceid: false };

/** The one face-recognition result that passes. */
export const FACEID_PASS = "pass";
const MAX_KEY_LENGTH = 128;

/** True when the request wants any evidence from the app. */
export const wantsAppEvidence = (wanted: AppEvidenceWanted | undefined): wanted is AppEvidenceWanted =>
  !!wanted && (wanted.gps || wanted.faceid);

/**
 * Checks the evidence the request wants in a verified device JWS's payload at `nowSeconds`. Pure and
 * total: any payload (not even an object) gives a verdict, never an exception; `description` is safe
 * to tell the app.
 */
export function checkAppEvidence(payload: unknown, wanted: AppEvidenceWanted, nowSeconds: number): AppEvidenceCheck {
  const claims = isObject(payload) ? payload : {};
  const evidence: AppEvidence = {};
  if (wanted.gps) {
    const gps = checkGps(claims.gps, nowSeconds);
    if (typeof gps === "string") return { ok: false, problem: "gps", description: gps };
    evidence.gps = gps;
  }
  if (wanted.faceid) {
    const faceid = checkFaceid(claims.faceid, nowSeconds);
    if (typeof faceid === "string") return { ok: false, problem: "faceid", description: faceid };
    evidence.faceid = faceid;
  }
  return { ok: true, evidence };
}

function checkGps(value: unknown, now: number): GpsEvidence | string {
  if (!isObject(value)) return "the location (gps) is required";
  const { lat, lnt, time } = value;
  if (!inRange(lat, -90, 90)) return "gps.lat must be a number from -90 to 90";
  if (!inRange(lnt, -180, 180)) return "gps.lnt must be a number from -180 to 180";
  const stale = staleness("gps", time, now);
  return stale ?? { lat, lnt, time: time as number };
}

function checkFaceid(value: unknown, now: number): FaceidEvidence | string {
  if (!isObject(value)) return "the face recognition result (faceid) is required";
  const { result, key, time } = value;
  if (result !== FACEID_PASS) return "face recognition did not pass";
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH)
    return `faceid.key must be 1 to ${MAX_KEY_LENGTH} characters`;
  const stale = staleness("faceid", time, now);
  return stale ?? { result, key, time: time as number };
}

/** Why `time` is not a fresh Unix-seconds time, or undefined when it is. */
function staleness(claim: string, time: unknown, now: number): string | undefined {
  if (typeof time !== "number" || !Number.isSafeInteger(time)) return `${claim}.time must be Unix seconds`;
  if (time > now + DEVICE_JWS_SKEW_SECONDS) return `${claim}.time is in the future`;
  if (time < now - DEVICE_JWS_SKEW_SECONDS) return `${claim}.time is not fresh: measure again`;
  return undefined;
}

const inRange = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
