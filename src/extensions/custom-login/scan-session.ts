import type { PhoneProgressContext } from "../../../flows/custom-login/phone-progress.machine.ts";

/** The authorize request one side of the login makes: fixed when LoginJs checked it. */
export interface SideRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
}

/** What LoginJs planned: the phone side's request (to the QR's client) and the PC side's. */
export interface ScanPlan {
  mobile: SideRequest;
  pc: SideRequest;
}

/** A machine's persisted state: its state value and context (the machines have no actors or timers). */
export interface PersistedProgress<Context> {
  value: string;
  context: Context;
}

/**
 * One scan session (SPEC "Custom-login status record"): created by a LoginJs load, shown as one QR
 * code, bound to the page that loaded the script by the hash of a secret only that page got, and
 * driven by the phone side (scan, status writes) and the PC side (its one login). `version` grows with
 * every change: writers claim the next version before they write (scan-sessions.ts).
 */
export interface ScanSession {
  id: string;
  bindingHash: string;
  plan: ScanPlan;
  /** The page's language (LoginJs `lang`, else the browser's), for the prompts of a renewed QR. */
  lang: string;
  createdAt: number;
  /** Until then the QR may be scanned; after a scan the operation has until operationExpiresAt. */
  qrExpiresAt: number;
  operationExpiresAt?: number;
  phone: PersistedProgress<PhoneProgressContext>;
  pc: PersistedProgress<Record<string, never>>;
  version: number;
}

/** What the page's script is told (contract: Status). */
export type ScanDisplayState = "waiting" | "scanned" | "auditing" | "approved" | "refused" | "expired" | "done";

/** The states in which nothing will change any more: a poll does not wait on them. */
export const SETTLED_DISPLAY_STATES: ReadonlySet<ScanDisplayState> = new Set(["refused", "expired", "done"]);
