import type { CustomLoginServices } from "./custom-login-services.ts";
import { CUSTOM_SCAN_SCOPE, type AuthorizationContribution, type IssuingAuthorization } from "../../plugin-contract/index.ts";

/** The access-token claim that ties the mobile page's token to its scan (the write-status check reads it). */
export const CUSTOM_SCAN_SESSION_CLAIM = "custom_scan_sid";

/**
 * The phone's scan, seen where every authorization gets its code: an authorization for the QR's
 * client and mobile redirect URI whose state starts with a live session's id (`<session_id>|…`, the
 * QR's link) is that session's scan. The first one records the scanner and the time (st) and gets
 * `custom_scan_sid` in its access token; any later one — another phone, the same QR again, an
 * expired QR — is refused. A state that merely looks alike (no such session, another client or
 * redirect URI) is not a scan: that authorization goes on untouched.
 */
export async function recordPhoneScan(
  services: Omit<CustomLoginServices, "http">,
  { request, sub, policy }: IssuingAuthorization,
): Promise<AuthorizationContribution | undefined> {
  const bar = request.state?.indexOf("|") ?? -1;
  if (bar <= 0) return undefined;
  const sessionId = request.state!.slice(0, bar);
  const session = await services.sessions.find(sessionId);
  if (!session || session.plan.mobile.clientId !== request.clientId || session.plan.mobile.redirectUri !== request.redirectUri)
    return undefined;
  if (!request.scopes.includes(CUSTOM_SCAN_SCOPE)) return { refuse: `a custom QR-code login scan needs the scope ${CUSTOM_SCAN_SCOPE}` };
  const change = await services.sessions.phone(
    sessionId,
    { type: "SCAN", scanner: sub, at: services.context.clock() },
    services.settings(policy),
  );
  if (change.outcome !== "applied") return { refuse: "this QR code has expired or was scanned already" };
  return { accessTokenClaims: { [CUSTOM_SCAN_SESSION_CLAIM]: sessionId } };
}
