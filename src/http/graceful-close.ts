import type { Server, ServerResponse } from "node:http";

/**
 * Closes a node:http server without leaving a client guessing whether its request was served (was a
 * token issued?): stop accepting; close idle keep-alive connections at once (a client that races us
 * there sees the connection close before any byte of its request is read, and may safely retry);
 * answer every request still in flight, or still arriving on an open connection, with
 * `Connection: close`, so the connection ends after that full response instead of going back to idle;
 * only after `graceMs` cut whatever is left. Install it when the server is created: it must see
 * requests in flight before the close begins. Returns the close function.
 */
export function gracefulClose(server: Server, graceMs: number): () => Promise<void> {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  // One listener function for every response (it is told which one as `this`): no closure per request.
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
  }
  server.on("request", (_req, res: ServerResponse) => {
    if (closing) {
      lastOnItsConnection(res, server);
      return;
    }
    inFlight.add(res);
    res.on("close", settled); // a response closes once
  });
  return async () => {
    closing = true;
    for (const res of inFlight) lastOnItsConnection(res, server);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(deadline);
  };
}

function lastOnItsConnection(res: ServerResponse, server: Server): void {
  if (!res.headersSent) {
    res.setHeader("Connection", "close");
    return;
  }
  // Headers already out as keep-alive: once this response is done its connection is idle; close it then.
  res.once("finish", () => setImmediate(() => server.closeIdleConnections()));
}
