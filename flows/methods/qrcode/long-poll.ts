import type { Request, Response } from "express";
import { closedFlag, waitForChange } from "../../../src/plugin-contract/index.ts";

/**
 * Answers `read()` as JSON. With `?seen=<state>` the answer waits until the state differs from it
 * (src/http-kit/long-poll.ts); it stops when the browser goes away. Without `seen` it answers at once
 * (the page's first look); so it does for a state that can no longer change (`isFinal`), e.g. an
 * expired or unknown challenge — a poll of a made-up id costs one store read, not a 25-second loop.
 */
export async function longPoll(
  req: Request,
  res: Response,
  read: () => Promise<{ state: string } | undefined>,
  isFinal: (state: string) => boolean = () => false,
): Promise<void> {
  const seen = typeof req.query.seen === "string" ? req.query.seen : undefined;
  const gone = closedFlag(res);
  const answer = await waitForChange(
    read,
    (value) => value !== undefined && seen !== undefined && value.state === seen && !isFinal(value.state),
    gone,
  );
  if (gone()) return;
  if (!answer) {
    res.status(404).set("Cache-Control", "no-store").json({ error: "not_found", error_description: "no such challenge" });
    return;
  }
  res.set("Cache-Control", "no-store").json(answer);
}
