import type { StatusAnswer } from "./write-status.ts";

/** What a mobile page (MobileRedirectUrl) keeps per phone, server-side: the scan, its token and where it stands. */
export interface PhoneSession {
  sub: string;
  /** The access token this page got for the scan: the only one that may write its status. */
  accessToken: string;
  scanSessionId: string;
  phase: "choosing" | "waiting" | "done";
  /** The auditor asked to approve (phase waiting). */
  waitingFor?: string;
  result?: { ok: boolean; text: string };
}

/** Ends the phone's part with the provider's answer to a status write: `success` for 200, its refusal otherwise. */
export function finishWrite(session: PhoneSession, written: StatusAnswer, success: string): void {
  session.phase = "done";
  session.result =
    written.status === 200
      ? { ok: true, text: success }
      : { ok: false, text: `The identity provider refused (${written.status}): ${written.message}` };
}
