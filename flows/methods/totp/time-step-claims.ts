import type { RecordStore } from "../../../src/stores/store.ts";

/**
 * RFC 6238 §5.2: a code is accepted once. A code is its time step, so accepting it means claiming
 * the (user, step) pair with the store's atomic `add` — among any number of concurrent submissions,
 * on any number of provider processes, one wins. A claim lives as long as its step can still be
 * accepted (at most three periods with ±1 step).
 */
export class TimeStepClaims {
  constructor(
    private readonly records: RecordStore<true>,
    private readonly methodId: string,
  ) {}

  /**
   * Claims `step` for the user; true for the one caller that claimed it. The window's earlier steps
   * are marked used as well, so once a code was accepted no older code (seen over a shoulder, say)
   * is accepted after it.
   */
  async claim(sub: string, step: number, period: number, nowMs: number): Promise<boolean> {
    const ttlMs = (3 * period + 1) * 1000;
    if (!(await this.records.add(this.key(sub, step), true, ttlMs))) return false;
    const current = Math.floor(nowMs / 1000 / period);
    for (let earlier = current - 1; earlier < step; earlier++) await this.records.add(this.key(sub, earlier), true, ttlMs);
    return true;
  }

  // A sub never holds ':' (users.yaml's pattern); a decoy sub never gets this far (it has no enrollment).
  private key(sub: string, step: number): string {
    return `${this.methodId}-step:${sub}:${step}`;
  }
}
