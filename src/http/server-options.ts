import type { ServerOptions } from "node:http";
import { parseDuration } from "../time/duration.ts";
import type { ListenConfig } from "../config/types.generated.ts";

/** Keep-alive longer than common proxies' idle timeouts, so they close first and never hit a dead socket. */
const KEEP_ALIVE_MS = 65_000;

/**
 * node:http options from `listen:`. A request must arrive whole within `request_timeout` (headers within
 * `headers_timeout`), or node answers 408 and closes the connection: without that, a client declaring a
 * body it never sends holds a connection for minutes. Node only checks these timeouts every
 * `connectionsCheckingInterval` (default 30 s), so the check runs at a quarter of the shorter timeout,
 * never less often than every 5 s: a timed-out request is closed within 1.25 × its timeout.
 */
export function serverOptions(listen: ListenConfig): ServerOptions {
  const headersTimeout = parseDuration(listen.headers_timeout) * 1000;
  const requestTimeout = parseDuration(listen.request_timeout) * 1000;
  return {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(5_000, Math.min(headersTimeout, requestTimeout) / 4),
    keepAliveTimeout: KEEP_ALIVE_MS,
  };
}
