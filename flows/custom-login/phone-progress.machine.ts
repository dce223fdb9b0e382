import { assign, setup } from "xstate";

/**
 * What the phone side has done, as the provider records it (SPEC "Custom-login status record"; times
 * in Unix seconds, as the `custom_scan` claim reports them).
 */
export interface PhoneProgressContext {
  /** The user whose trusted app scanned the QR code (the mobile page's token is theirs). */
  scanner?: string;
  /** st: when the phone scanned. */
  scannedAt?: number;
  /** The auditor account status 5 named, and when (lt). */
  auditor?: string;
  auditRequestedAt?: number;
  /** The custom operation's data (status 10), handed to the PC side unchanged; et. */
  data?: string;
  finishedAt?: number;
}

export type PhoneProgressEvent =
  | { type: "SCAN"; scanner: string; at: number }
  | { type: "WRITE_AUDITING"; auditor: string; at: number }
  | { type: "WRITE_FINISHED"; data: string; at: number }
  | { type: "WRITE_REFUSED"; at: number }
  | { type: "EXPIRE" };

/**
 * The phone side of a custom QR-code login (SPEC "Custom QR-code login (phone-side progress)"): the
 * QR waits for one scan (s0 after it); the mobile page then writes 5 (an auditor must approve: s5) as
 * often as it names a new auditor, and finally 10 (done: s10, the PC side may log in) or -10 (refused:
 * sn10). A session not finished in time expires. Status writes only ever move forward: nothing leaves
 * a final state, so a status cannot be rewritten once the PC side acted on it.
 */
export const phoneProgressMachine = setup({
  types: {
    context: {} as PhoneProgressContext,
    events: {} as PhoneProgressEvent,
  },
  actions: {
    recordScan: assign(({ event }) => (event.type === "SCAN" ? { scanner: event.scanner, scannedAt: event.at } : {})),
    recordAuditor: assign(({ event }) => (event.type === "WRITE_AUDITING" ? { auditor: event.auditor, auditRequestedAt: event.at } : {})),
    recordFinished: assign(({ event }) => (event.type === "WRITE_FINISHED" ? { data: event.data, finishedAt: event.at } : {})),
  },
}).createMachine({
  id: "customLoginPhone",
  context: {},
  initial: "waitingForScan",
  states: {
    waitingForScan: {
      on: { SCAN: { target: "scanned", actions: "recordScan" }, EXPIRE: "expired" },
    },
    scanned: {
      on: {
        WRITE_AUDITING: { target: "auditing", actions: "recordAuditor" },
        WRITE_FINISHED: { target: "finished", actions: "recordFinished" },
        WRITE_REFUSED: "refused",
        EXPIRE: "expired",
      },
    },
    auditing: {
      on: {
        WRITE_AUDITING: { target: "auditing", actions: "recordAuditor", reenter: true },
        WRITE_FINISHED: { target: "finished", actions: "recordFinished" },
        WRITE_REFUSED: "refused",
        EXPIRE: "expired",
      },
    },
    finished: { type: "final" },
    refused: { type: "final" },
    expired: { type: "final" },
  },
});
