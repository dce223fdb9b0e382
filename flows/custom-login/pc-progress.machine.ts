import { setup } from "xstate";

export type PcProgressEvent =
  | { type: "PHONE_SCANNED" }
  | { type: "AUDITOR_ASKED" }
  | { type: "PHONE_FINISHED" }
  | { type: "PHONE_REFUSED" }
  | { type: "LOG_IN"; bound: boolean }
  | { type: "EXPIRE" };

/**
 * The PC side of a custom QR-code login: what the page that loaded the script shows (the QR, then the
 * s0/s5/sn10/s10 prompts) follows the phone side, and the one thing the PC side does itself — the
 * login from the cache — is allowed once, after the phone finished, and only to the browser the session
 * is bound to (`bound`: it presented the binding secret the script was given). A second login, or one
 * from another browser, finds no LOG_IN transition and is refused.
 */
export const pcProgressMachine = setup({
  types: {
    events: {} as PcProgressEvent,
  },
  guards: {
    isBoundBrowser: ({ event }) => event.type === "LOG_IN" && event.bound,
  },
}).createMachine({
  id: "customLoginPc",
  initial: "showingQr",
  states: {
    showingQr: {
      on: { PHONE_SCANNED: "phoneScanned", EXPIRE: "expired" },
    },
    phoneScanned: {
      on: { AUDITOR_ASKED: "awaitingAuditor", PHONE_FINISHED: "readyToLogIn", PHONE_REFUSED: "refused", EXPIRE: "expired" },
    },
    awaitingAuditor: {
      on: { AUDITOR_ASKED: "awaitingAuditor", PHONE_FINISHED: "readyToLogIn", PHONE_REFUSED: "refused", EXPIRE: "expired" },
    },
    readyToLogIn: {
      on: { LOG_IN: { guard: "isBoundBrowser", target: "loggedIn" }, EXPIRE: "expired" },
    },
    loggedIn: { type: "final" },
    refused: { type: "final" },
    expired: { type: "final" },
  },
});
