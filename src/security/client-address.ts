import type { IncomingMessage } from "node:http";

/**
 * The address a request came from, for per-address limits. Without a trusted proxy it is the TCP
 * peer. With `trust_proxy` it is the last X-Forwarded-For entry: the one our own proxy appended, which
 * a client cannot choose (entries before it are whatever the client sent).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers["x-forwarded-for"];
    const last = (Array.isArray(header) ? header.at(-1) : header)?.split(",").at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? "unknown";
}
