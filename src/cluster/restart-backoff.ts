/** A worker that lived this long before it exited crashed once, not in a loop: its backoff starts over. */
const STABLE_AFTER_MS = 30_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/**
 * How long the primary waits before replacing a worker that exited: at once-ish after a rare crash,
 * doubling (to 30 s) while replacements keep dying young, so a worker that always crashes (a store
 * that refuses it, a bug at start) costs a log line every 30 s instead of a core.
 */
export class RestartBackoff {
  #failures = 0;

  /** The delay before the next start, given how long the worker that exited had run. */
  next(livedMs: number): number {
    this.#failures = livedMs >= STABLE_AFTER_MS ? 1 : this.#failures + 1;
    return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (this.#failures - 1));
  }
}
