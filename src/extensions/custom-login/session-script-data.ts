import type { CustomLoginServices } from "./custom-login-services.ts";
import type { ScanSession } from "./scan-session.ts";
import { appendQuery, formatScope, qrSvgDataUri } from "../../plugin-contract/index.ts";

/** The authorize path of the phone side's request (the QR's link). */
const AUTHORIZE_PATH = "/connect/authorize";

/** What the page learns of a new session (LoginJs's SESSION, and Renew's answer): the QR and how to follow it. */
export interface SessionScriptData {
  sessionId: string;
  binding: string;
  qrUri: string;
  qrImage: string;
  expiresIn: number;
}

/**
 * The QR's link: the phone side's authorize request, its state `<session_id>|<MobileState>` (SPEC: the
 * mobile page takes the session id from before the bar), and the session's script data.
 */
export async function sessionScriptData(services: CustomLoginServices, session: ScanSession, binding: string): Promise<SessionScriptData> {
  const { mobile } = session.plan;
  const qrUri = appendQuery(`${services.context.issuer}${AUTHORIZE_PATH}`, [
    ["client_id", mobile.clientId],
    ["redirect_uri", mobile.redirectUri],
    ["response_type", "code"],
    ["scope", formatScope(mobile.scopes)],
    ["state", `${session.id}|${mobile.state ?? ""}`],
  ]);
  return {
    sessionId: session.id,
    binding,
    qrUri,
    qrImage: await qrSvgDataUri(qrUri),
    expiresIn: Math.max(0, Math.round((session.qrExpiresAt - services.context.clock()) / 1000)),
  };
}
