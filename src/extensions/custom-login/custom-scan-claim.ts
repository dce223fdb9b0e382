import type { PhoneProgressContext } from "../../../flows/custom-login/phone-progress.machine.ts";

/**
 * The ID token's `custom_scan` (SPEC "Access token and ID token"; DESIGN: standard base64 of the JSON
 * `{st, aud, lt, et}`, all strings): st when the phone scanned, aud the auditor and lt when status 5
 * named them (both empty without an auditor step), et when status 10 was written. Unix seconds.
 */
export function customScanClaim(phone: PhoneProgressContext): string {
  const seconds = (ms: number | undefined) => (ms === undefined ? "" : String(Math.floor(ms / 1000)));
  const value = {
    st: seconds(phone.scannedAt),
    aud: phone.auditor ?? "",
    lt: seconds(phone.auditRequestedAt),
    et: seconds(phone.finishedAt),
  };
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}
