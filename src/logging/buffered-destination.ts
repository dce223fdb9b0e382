import { pino, type DestinationStream } from "pino";

/** How long a line may wait in the buffer before it is written, when the provider is quiet. */
const FLUSH_EVERY_MS = 200;
/**
 * Lines are written in batches of at least this many bytes (or every FLUSH_EVERY_MS). Each write costs a
 * file-system call on the request core; at 4 KiB batches the operational log and the audit trail were
 * ~5% of an SSO code flow's CPU besides its signatures (docs/performance.md), at 32 KiB a fraction of it.
 */
const BATCH_BYTES = 32 * 1024;
/** sonic-boom writes at most this much per call; it must exceed the batch. */
const MAX_WRITE_BYTES = 256 * 1024;

/**
 * An asynchronous pino destination on a file descriptor that writes in batches, flushed at least every
 * FLUSH_EVERY_MS and when the process exits (pino does that). A SIGKILL can lose the last
 * FLUSH_EVERY_MS of lines: the price of not paying a write syscall per line on the hot path.
 */
export function bufferedDestination(fd: number): DestinationStream & { flush(cb?: (err?: Error) => void): void } {
  const stream = pino.destination({ dest: fd, sync: false, minLength: BATCH_BYTES, maxWrite: MAX_WRITE_BYTES });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // not open yet, or a write in flight: the next tick flushes
    }
  }, FLUSH_EVERY_MS).unref();
  return stream;
}
