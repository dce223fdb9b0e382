import { randomBytes } from "node:crypto";

export type Decision = "approved" | "refused";

export interface Approval {
  /** 256 random bits: the approval page's address is the only way to it (see docs/decisions.md). */
  readonly id: string;
  /** Who asks (the sub of the token that created it). */
  readonly requester: string;
  /** Who is asked to approve (an account of the channel, the auditor). */
  readonly to: string;
  readonly text: string;
  decision: Decision | "pending";
  readonly expiresAt: number;
}

/**
 * Approval requests, answered once by the person asked on the approval page. Whoever asked learns the
 * decision either in this process (`onDecision`: the channel selector page) or by asking for it over
 * HTTP (the demo third-party site). In memory, at most `max`, each for `ttlMs` (default 10 minutes,
 * longer than a scan session lives).
 */
export class Approvals {
  private readonly options: { ttlMs?: number; max?: number };
  private readonly approvals = new Map<string, Approval>();
  private readonly listeners = new Map<string, Array<(decision: Decision) => void>>();

  constructor(options: { ttlMs?: number; max?: number } = {}) {
    this.options = options;
  }

  create(request: { requester: string; to: string; text: string }): Approval {
    const approval: Approval = {
      ...request,
      id: randomBytes(32).toString("base64url"),
      decision: "pending",
      expiresAt: Date.now() + (this.options.ttlMs ?? 10 * 60_000),
    };
    this.approvals.set(approval.id, approval);
    while (this.approvals.size > (this.options.max ?? 1000)) this.forget(this.approvals.keys().next().value!);
    return approval;
  }

  get(id: string): Approval | undefined {
    const approval = this.approvals.get(id);
    if (approval && approval.expiresAt <= Date.now()) {
      this.forget(id);
      return undefined;
    }
    return approval;
  }

  /** Records the answer; false when the request is unknown, expired or answered already (an answer is final). */
  decide(id: string, decision: Decision): boolean {
    const approval = this.get(id);
    if (approval?.decision !== "pending") return false;
    approval.decision = decision;
    const listeners = this.listeners.get(id) ?? [];
    this.listeners.delete(id);
    for (const listener of listeners) listener(decision);
    return true;
  }

  /** Calls `listener` once, when the request is answered. */
  onDecision(id: string, listener: (decision: Decision) => void): void {
    this.listeners.set(id, [...(this.listeners.get(id) ?? []), listener]);
  }

  private forget(id: string): void {
    this.approvals.delete(id);
    this.listeners.delete(id);
  }
}
