import type { Server, ServerResponse } from "node:http";

export interface ShutdownTimes {
  /** How long open connections keep being served (each answer with `Connection: close`) before idle ones are closed. */
  drainMs: number;
  /** When whatever is left is cut, counted from the start of the drain. */
  graceMs: number;
}

export interface GracefulClose {
  /** True once the stop has begun (the readiness endpoint answers 503 from then on). */
  stopping(): boolean;
  /**
   * Stops accepting connections; open ones are served as before (kept alive) until close(). A cluster
   * worker stops there until no worker accepts (src/cluster/drain-together.ts): a client sent away
   * earlier could reconnect through the primary to a worker that is closing its listener, and be reset.
   */
  stopAccepting(): void;
  /** Stops accepting and drains; resolves once no connection is left: at once when none is open, after `graceMs` at the latest. */
  close(): Promise<void>;
}

/**
 * Closes a node:http server so that every request that reached it is answered: a client answered by a
 * reset cannot tell whether its request was served (was a token issued?), and Node's fetch retries no POST.
 * - Stop accepting: a new connection is refused before anything is sent, which is safe to retry.
 * - For `drainMs`, keep every open connection and answer each request on it — in flight, or arriving —
 *   with `Connection: close`, so the connection ends after that full response and the client's next
 *   request opens a new connection (refused). Closing idle keep-alive connections at once instead, as
 *   node:http's close() does, resets the requests already on their way over them.
 * - Then close the connections that stayed idle (a client that sent nothing for the whole drain period
 *   is not in the middle of anything), and after `graceMs` cut whatever is left.
 * Install it when the server is created: it must see requests in flight before the close begins.
 */
export function gracefulClose(server: Server, times: ShutdownTimes): GracefulClose {
  const inFlight = new Set<ServerResponse>();
  let closed: Promise<void> | undefined;
  let draining = false;
  let drained = false;
  // One listener function for every response (it is told which one as `this`): no closure per request.
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
  }
  function lastOnItsConnection(res: ServerResponse): void {
    if (!res.headersSent) {
      res.setHeader("Connection", "close");
      return;
    }
    // Headers already out as keep-alive: once done, its connection is idle; after the drain nothing else closes it.
    res.once("finish", () => setImmediate(() => drained && server.closeIdleConnections()));
  }
  server.on("request", (_req, res: ServerResponse) => {
    if (draining) {
      lastOnItsConnection(res);
      return;
    }
    inFlight.add(res);
    res.on("close", settled); // a response closes once
  });
  const stopAccepting = () => {
    closed ??= new Promise<void>((resolve) => closeListener(server, resolve));
    return closed;
  };
  return {
    stopping: () => closed !== undefined,
    stopAccepting: () => void stopAccepting(),
    async close() {
      const allClosed = stopAccepting();
      draining = true;
      for (const res of inFlight) lastOnItsConnection(res);
      const drain = setTimeout(() => {
        drained = true;
        server.closeIdleConnections();
      }, times.drainMs);
      const deadline = setTimeout(() => server.closeAllConnections(), times.graceMs);
      await allClosed;
      clearTimeout(drain);
      clearTimeout(deadline);
    },
  };
}

/**
 * node:http's close() — stop listening, stop its timeout-checking interval, call back once no connection
 * is left — without the closing of idle keep-alive connections it begins with (since Node 19): those are
 * served through the drain. Its own closeIdleConnections is shadowed for that one call.
 */
function closeListener(server: Server, closed: () => void): void {
  server.closeIdleConnections = () => {};
  try {
    server.close(() => closed());
  } finally {
    delete (server as Partial<Server>).closeIdleConnections;
  }
}
