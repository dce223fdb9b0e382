import { writeSync } from "node:fs";
import { pino, type DestinationStream } from "pino";

/** How long a line may wait before it is written, when the provider is quiet. */
const FLUSH_EVERY_MS = 200;
/**
 * Lines are handed to the file in batches of about this many characters (or every FLUSH_EVERY_MS): each
 * write is a file-system call on the request core, which one line per request paid measurably
 * (docs/performance.md).
 */
const BATCH_CHARS = 16 * 1024;

/** A pino destination that batches lines and can be flushed. */
export interface BufferedDestination extends DestinationStream {
  /** Writes what is pending; `done` once it is written (sonic-boom's flush). */
  flush(done?: (error?: Error) => void): void;
  /** Writes what is pending and stops batching: see LineBatcher.end. */
  end(done?: () => void): void;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** Destinations with lines not yet handed to their file, written synchronously when the process exits. */
const open = new Set<LineBatcher>();
let exitHookInstalled = false;

/**
 * Joins lines into batches before handing them to sonic-boom (pino's asynchronous file writer, which
 * deals with partial writes, EAGAIN and ordering). Handing it each line instead made it measure the
 * whole pending buffer on every write (Buffer.byteLength of its last chunk): with a buffer big enough to
 * spare the syscalls, that was ~8% of a token request's CPU besides the signature.
 */
class LineBatcher implements BufferedDestination {
  private readonly fd: number;
  private readonly sonic: ReturnType<typeof pino.destination>;
  #pending: string[] = [];
  #chars = 0;
  #ended = false;
  readonly #timer: NodeJS.Timeout;

  constructor(fd: number, sonic: ReturnType<typeof pino.destination>) {
    this.fd = fd;
    this.sonic = sonic;
    this.#timer = setInterval(() => this.drain(), FLUSH_EVERY_MS).unref();
  }

  write(line: string): void {
    // A late line (a callback of a provider that has stopped) is written at once: nothing lost, nothing thrown.
    if (this.#ended) return void writeSync(this.fd, line);
    this.#pending.push(line);
    this.#chars += line.length;
    if (this.#chars >= BATCH_CHARS) this.drain();
  }

  /** Hands the pending lines to sonic-boom as one string, which writes it at once (or after the write in flight). */
  drain(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#pending.join("");
    this.#pending = [];
    this.#chars = 0;
    this.sonic.write(batch);
  }

  flush(done?: (error?: Error) => void): void {
    this.drain();
    try {
      this.sonic.flush(done);
    } catch (error) {
      // Not open yet, or nothing to write: a later flush writes it.
      done?.(error as Error);
    }
  }

  /** At exit: there is no event loop left to wait on. */
  flushSync(): void {
    this.drain();
    try {
      this.sonic.flushSync();
    } catch {
      // Not open yet or already ended: nothing more can be done at exit.
    }
  }

  /**
   * Writes what is pending, stops the timer and leaves the exit hook's set: what a stopping provider
   * does, so that a process that starts many (the tests, a CLI command) keeps no timer per stopped one.
   * The descriptor stays open: a line written later (a late callback of a stopped provider) is written
   * at once with it, where a closed and reused descriptor could send it into another file. `done` once
   * the pending lines are written.
   */
  end(done?: () => void): void {
    if (this.#ended) return void done?.();
    this.#ended = true;
    clearInterval(this.#timer);
    open.delete(this);
    this.flush(() => done?.());
  }

  on(event: "error", listener: (error: Error) => void): this {
    this.sonic.on(event, listener);
    return this;
  }
}

/**
 * An asynchronous pino destination on a file descriptor that writes in batches, at least every
 * FLUSH_EVERY_MS and when the process exits. A SIGKILL can lose the last FLUSH_EVERY_MS of lines: the
 * price of not paying a write syscall per line on the hot path.
 */
export function bufferedDestination(fd: number): BufferedDestination {
  // minLength 1: sonic-boom writes each batch at once, and its flush(done) still waits for the write in
  // flight (with 0 it would call back at once).
  const batcher = new LineBatcher(fd, pino.destination({ dest: fd, sync: false, minLength: 1 }));
  open.add(batcher);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const destination of open) destination.flushSync();
    });
  }
  return batcher;
}
