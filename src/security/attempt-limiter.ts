import { createHash } from "node:crypto";
import type { RecordStore } from "../stores/store.ts";

/**
 * Limits attempts per subject (an account, or account + method) through a counter in the shared
 * store, so every provider process sees the same count. An attempt is counted atomically *before*
 * the secret is checked: otherwise guesses sent together all pass a "not locked yet" check while the
 * earlier ones are still being verified. A success resets the count. Callers answer a refused
 * attempt exactly as they answer a wrong secret, so a lockout is not observable.
 */
export class AttemptLimiter {
  private readonly counters: RecordStore<number>;
  private readonly scope: string;
  private readonly maxFailures: number;
  private readonly windowMs: number;
  /** Told once per window, at the first attempt refused: the subject is locked (the audit trail's lockout). */
  private readonly onLockout?: (subject: string) => Promise<void> | void;

  constructor(
    counters: RecordStore<number>,
    scope: string,
    maxFailures: number,
    windowMs: number,
    onLockout?: (subject: string) => Promise<void> | void,
  ) {
    this.counters = counters;
    this.scope = scope;
    this.maxFailures = maxFailures;
    this.windowMs = windowMs;
    this.onLockout = onLockout;
  }

  /** Counts one attempt; false when the subject has used up its attempts in this window. */
  async tryAttempt(subject: string): Promise<boolean> {
    const count = await this.counters.increment(this.key(subject), this.windowMs);
    if (count === this.maxFailures + 1) await this.onLockout?.(subject);
    return count <= this.maxFailures;
  }

  /** The attempt succeeded: its count (and earlier failures) no longer stand against the subject. */
  async succeeded(subject: string): Promise<void> {
    await this.counters.delete(this.key(subject));
  }

  /** Attempts counted in the current window (for operators and tests). */
  async count(subject: string): Promise<number> {
    return (await this.counters.get(this.key(subject))) ?? 0;
  }

  /**
   * The subject is caller input (a user name): it is hashed, so a store key has a fixed length and
   * no control characters whatever was typed, and the same name in any letter case counts once.
   */
  private key(subject: string): string {
    return `${this.scope}:${createHash("sha256").update(subject.toLowerCase()).digest("base64url")}`;
  }
}
