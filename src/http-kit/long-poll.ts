import { setTimeout as sleep } from "node:timers/promises";

/** How long one poll waits for a change before it answers anyway (below common proxy timeouts). */
export const LONG_POLL_MS = 25_000;
/** How often a waiting poll reads the store: the change may come from another provider process. */
const STORE_READ_INTERVAL_MS = 500;

/**
 * A long-poll's wait: reads the value, and while `unchanged` says the caller has seen it already, reads
 * it again every STORE_READ_INTERVAL_MS (the shared store, not an event in this process: the change
 * may be made by another provider process), until LONG_POLL_MS passed or the caller went away. The
 * last value read is the answer.
 */
export async function waitForChange<T>(read: () => Promise<T>, unchanged: (value: T) => boolean, gone: () => boolean): Promise<T> {
  const deadline = Date.now() + LONG_POLL_MS;
  let value = await read();
  while (unchanged(value) && !gone() && Date.now() < deadline) {
    await sleep(STORE_READ_INTERVAL_MS);
    value = await read();
  }
  return value;
}

/** Whether the response's connection closed: a poll stops waiting for a caller that left. */
export function closedFlag(res: { on(event: "close", listener: () => void): unknown }): () => boolean {
  let closed = false;
  res.on("close", () => (closed = true));
  return () => closed;
}
