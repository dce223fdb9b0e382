import type { Request, Response } from "express";

/** How long one poll waits for a change before it answers anyway (below common proxy timeouts). */
export const LONG_POLL_MS = 25_000;
/** How often a waiting poll reads the store: the change may come from another provider process. */
const STORE_READ_INTERVAL_MS = 500;

/**
 * Answers `read()` as JSON. With `?seen=<state>` the answer waits until the state differs from it (or
 * LONG_POLL_MS passed), reading the shared store again every STORE_READ_INTERVAL_MS; it stops when
 * the browser goes away. Without `seen` it answers at once (the page's first look); so it does for a
 * state that can no longer change (`isFinal`), e.g. an expired or unknown challenge — a poll of a
 * made-up id costs one store read, not a 25-second loop.
 */
export async function longPoll(req: Request, res: Response, read: () => Promise<{ state: string } | undefined>, isFinal: (state: string) => boolean = () => false): Promise<void> {
  const seen = typeof req.query.seen === "string" ? req.query.seen : undefined;
  let gone = false;
  res.on("close", () => {
    gone = true;
  });
  let answer = await read();
  const deadline = Date.now() + LONG_POLL_MS;
  while (answer && seen !== undefined && answer.state === seen && !isFinal(answer.state) && !gone && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, STORE_READ_INTERVAL_MS));
    answer = await read();
  }
  if (gone) return;
  if (!answer) {
    res.status(404).set("Cache-Control", "no-store").json({ error: "not_found", error_description: "no such challenge" });
    return;
  }
  res.set("Cache-Control", "no-store").json(answer);
}
