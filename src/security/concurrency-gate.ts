import { oauthError } from "../errors/oauth-error.ts";

/**
 * Runs at most `limit` tasks at once and lets at most `limit × queueFactor` wait; a task beyond that is
 * refused at once with 503 temporarily_unavailable. For work that is expensive on purpose (scrypt): a
 * flood then costs its senders refusals instead of costing every user a long wait.
 */
export class ConcurrencyGate {
  private readonly limit: number;
  private readonly queueFactor: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(limit: number, queueFactor = 16) {
    this.limit = limit;
    this.queueFactor = queueFactor;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.limit * this.queueFactor) {
        throw oauthError("temporarily_unavailable", "too many logins are being checked; try again in a moment");
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next in line (running stays the same), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
