import type { RecordStore } from "../stores/store.ts";

/**
 * Counts failed attempts per subject (an account, or account + method) in the shared store, so every
 * provider process sees the same count. A locked subject is told exactly what a wrong answer is told:
 * callers check `isLocked` but answer a lock and a failure alike.
 */
export class AttemptLimiter {
  constructor(
    private readonly counters: RecordStore<number>,
    private readonly scope: string,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  async isLocked(subject: string): Promise<boolean> {
    return ((await this.counters.get(this.key(subject))) ?? 0) >= this.maxFailures;
  }

  /** Records one failure; atomic, so concurrent failures are all counted. */
  async recordFailure(subject: string): Promise<number> {
    return this.counters.increment(this.key(subject), this.windowMs);
  }

  async reset(subject: string): Promise<void> {
    await this.counters.delete(this.key(subject));
  }

  private key(subject: string): string {
    return `${this.scope}:${subject.toLowerCase()}`;
  }
}
