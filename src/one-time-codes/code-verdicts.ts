/** What the actors of a code method answer its machines. Secrets never appear here: these land in context. */

/** The outcome of a send: sent (or, for a user with nothing to send to, looking exactly as if), or why not. */
export type SendOutcome = "sent" | "too_soon" | "limited" | "failed";

export interface SendVerdict {
  outcome: SendOutcome;
  /** The slot's challenge id: created by the first send of an interaction, then kept by the machine. */
  challenge: string;
  /** How long a code is valid, for the page. */
  minutes: number;
}

/** Input of a send (login: to the user's confirmed address; enrollment: to the typed one). */
export interface SendInput {
  sub: string;
  challenge?: string;
  /** From RequestFacts: the per-address budget. */
  clientAddress?: string;
  /** The page language, for the message text. */
  lang?: string;
  /** Enrollment only: the address to confirm (normalised). */
  target?: string;
}

/** Input of a check: the code travels only here and in the event, never in context. */
export interface CheckInput {
  sub: string;
  challenge?: string;
  code?: string;
}

/** A wrong, expired, superseded or reused code, a locked account and an unknown user all answer `ok: false`. */
export interface CheckVerdict {
  ok: boolean;
}
