import type { ServerResponse } from "node:http";

/**
 * Answers 303 See Other to `location` (the browser follows with GET, also after a POSTed form), never
 * cached, with an empty body. Headers set earlier (cookies) are kept.
 */
export function seeOther(res: ServerResponse, location: string): void {
  res.writeHead(303, { Location: location, "Cache-Control": "no-store", "Content-Length": "0" });
  res.end();
}
