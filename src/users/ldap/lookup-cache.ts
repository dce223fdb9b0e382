import type { Clock } from "../../time/clock.ts";

/** Most entries held: a flood of distinct names must not grow the process without bound. */
const MAX_ENTRIES = 50_000;

/**
 * Directory answers for `ttlMs` (directory.yaml `cache_ttl`), and one lookup in flight per key: a hundred
 * requests for the same person while the directory is slow ask it once. Answers of "nobody" are kept
 * too, so unknown names cannot make every request a search. Failures are not kept: the next request asks
 * again, which is how the provider notices the directory is back.
 */
export class LookupCache<T> {
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly answers = new Map<string, { value: T | undefined; until: number }>();
  private readonly inFlight = new Map<string, Promise<T | undefined>>();

  constructor(clock: Clock, ttlMs: number) {
    this.clock = clock;
    this.ttlMs = ttlMs;
  }

  /** The answer for `key`: kept, being looked up, or from `lookup` now. */
  get(key: string, lookup: () => Promise<T | undefined>): Promise<T | undefined> {
    const kept = this.answers.get(key);
    if (kept !== undefined && kept.until > this.clock()) return Promise.resolve(kept.value);
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = lookup()
      .then((value) => {
        this.put(key, value);
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  /** Keeps `value` under `key` for the TTL (an answer found by another key, e.g. a person by sub after a search by name). */
  put(key: string, value: T | undefined): void {
    this.answers.delete(key);
    if (this.answers.size >= MAX_ENTRIES) this.evictOldest();
    this.answers.set(key, { value, until: this.clock() + this.ttlMs });
  }

  private evictOldest(): void {
    // Map iterates in insertion order and put() re-inserts: the first key is the oldest answer.
    const oldest = this.answers.keys().next();
    if (!oldest.done) this.answers.delete(oldest.value);
  }
}
