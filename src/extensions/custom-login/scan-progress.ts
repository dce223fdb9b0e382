import { initialTransition, transition, type AnyStateMachine } from "xstate";
import { phoneProgressMachine, type PhoneProgressEvent } from "../../../flows/custom-login/phone-progress.machine.ts";
import { pcProgressMachine, type PcProgressEvent } from "../../../flows/custom-login/pc-progress.machine.ts";
import type { PersistedProgress, ScanDisplayState, ScanSession } from "./scan-session.ts";

/**
 * The two machines of a scan session, run as pure transitions over the persisted record (they have
 * no actors and no timers, so a transition is a function of the state and the event). A phone event
 * moves the phone machine and tells the PC machine what the page must show next; the PC side's only
 * event of its own is its login. An event a machine does not accept changes nothing: `accepted` says.
 */

/** The states a new session starts in. */
export function initialProgress(): Pick<ScanSession, "phone" | "pc"> {
  return { phone: persisted(initialTransition(phoneProgressMachine)[0]), pc: persisted(initialTransition(pcProgressMachine)[0]) };
}

/** What a phone event tells the PC side. */
const PC_EVENT_OF: Record<PhoneProgressEvent["type"], PcProgressEvent["type"]> = {
  SCAN: "PHONE_SCANNED",
  WRITE_AUDITING: "AUDITOR_ASKED",
  WRITE_FINISHED: "PHONE_FINISHED",
  WRITE_REFUSED: "PHONE_REFUSED",
  EXPIRE: "EXPIRE",
};

export interface Advanced {
  accepted: boolean;
  session: ScanSession;
}

/** Applies a phone-side event (and its echo on the PC side). */
export function advancePhone(session: ScanSession, event: PhoneProgressEvent): Advanced {
  const phone = step(phoneProgressMachine, session.phone, event);
  if (!phone) return { accepted: false, session };
  const pc = step(pcProgressMachine, session.pc, { type: PC_EVENT_OF[event.type] } as PcProgressEvent) ?? session.pc;
  return { accepted: true, session: { ...session, phone, pc: pc as ScanSession["pc"], version: session.version + 1 } };
}

/** Applies the PC side's login (`bound`: the request presented the session's binding secret). */
export function advancePc(session: ScanSession, event: Extract<PcProgressEvent, { type: "LOG_IN" }>): Advanced {
  const pc = step(pcProgressMachine, session.pc, event);
  if (!pc) return { accepted: false, session };
  return { accepted: true, session: { ...session, pc: pc as ScanSession["pc"], version: session.version + 1 } };
}

/** A session past its deadline, as it is from now on (both machines expired); unchanged when not due. */
export function expireIfDue(session: ScanSession, now: number): ScanSession {
  const phoneWaits = session.phone.value === "waitingForScan";
  const deadline = phoneWaits ? session.qrExpiresAt : (session.operationExpiresAt ?? session.qrExpiresAt);
  if (now < deadline) return session;
  const expired = advancePhone(session, { type: "EXPIRE" }).session;
  // A finished phone side cannot expire any more, but a PC login that never came must stop being possible.
  const pc = step(pcProgressMachine, expired.pc, { type: "EXPIRE" }) ?? expired.pc;
  return { ...expired, pc: pc as ScanSession["pc"] };
}

/** What the page shows now. */
export function displayState(session: ScanSession): ScanDisplayState {
  switch (session.pc.value) {
    case "showingQr":
      return "waiting";
    case "phoneScanned":
      return "scanned";
    case "awaitingAuditor":
      return "auditing";
    case "readyToLogIn":
      return "approved";
    case "loggedIn":
      return "done";
    case "refused":
      return "refused";
    default:
      return "expired";
  }
}

/** The next persisted state, or undefined when the machine does not take the event where it is. */
function step<Context>(
  machine: AnyStateMachine,
  from: PersistedProgress<Context>,
  event: { type: string },
): PersistedProgress<Context> | undefined {
  const snapshot = machine.resolveState({ value: from.value, context: from.context as never });
  if (!snapshot.can(event)) return undefined;
  return persisted(transition(machine, snapshot, event as never)[0]) as PersistedProgress<Context>;
}

function persisted(snapshot: { value: unknown; context: unknown }): PersistedProgress<never> {
  return { value: String(snapshot.value), context: (snapshot.context ?? {}) as never };
}
