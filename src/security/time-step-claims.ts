import type { RecordStore } from "../stores/store.ts";

/**
 * RFC 6238 §5.2: a code is accepted once. A code is its time step, so accepting it means claiming
 * the (subject, step) pair with the store's atomic `add` — among any number of concurrent submissions,
 * on any number of provider processes, one wins. A claim lives as long as its step can still be
 * accepted (at most three periods with ±1 step).
 */
export class TimeStepClaims {
  private readonly records: RecordStore<true>;
  /** What the claims are of (a method id): keys of different scopes never meet. */
  private readonly scope: string;

  constructor(records: RecordStore<true>, scope: string) {
    this.records = records;
    this.scope = scope;
  }

  /**
   * Claims `step` for the subject (a user, a device); true for the one caller that claimed it. The window's earlier steps
   * are marked used as well, so once a code was accepted no older code (seen over a shoulder, say)
   * is accepted after it.
   */
  async claim(subject: string, step: number, period: number, nowMs: number): Promise<boolean> {
    const ttlMs = (3 * period + 1) * 1000;
    if (!(await this.records.add(this.key(subject, step), true, ttlMs))) return false;
    const current = Math.floor(nowMs / 1000 / period);
    for (let earlier = current - 1; earlier < step; earlier++) await this.records.add(this.key(subject, earlier), true, ttlMs);
    return true;
  }

  // A subject (a sub, a device id) never holds ':'; a decoy sub never gets this far (it has no enrollment).
  private key(subject: string, step: number): string {
    return `${this.scope}-step:${subject}:${step}`;
  }
}
