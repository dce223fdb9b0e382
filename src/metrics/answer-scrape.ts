import type { IncomingMessage, ServerResponse } from "node:http";
import { constantTimeEqual } from "../crypto/constant-time-equal.ts";

/** Where a scrape's text comes from: a process's registry, or the primary's gathering of all workers. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * Answers one scrape of /metrics: 401 without the bearer token (when one is configured), 405 for
 * anything but GET or HEAD, 503 when the metrics cannot be gathered (a worker did not answer the primary
 * in time), else the Prometheus text.
 */
export async function answerScrape(
  req: IncomingMessage,
  res: ServerResponse,
  token: string | undefined,
  source: MetricsSource,
): Promise<void> {
  if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
    return plain(res, 401, "a bearer token is required (metrics.token)", { "WWW-Authenticate": 'Bearer realm="metrics"' });
  }
  if (req.method !== "GET" && req.method !== "HEAD") return plain(res, 405, "use GET", { Allow: "GET, HEAD" });
  let body: string;
  try {
    body = await source.metrics();
  } catch {
    return plain(res, 503, "the metrics could not be gathered; try again");
  }
  res.writeHead(200, { "Content-Type": source.contentType, "Cache-Control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : body);
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !/^Bearer /i.test(header)) return false;
  return constantTimeEqual(header.slice(7).trim(), token);
}

function plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers });
  res.end(`${message}\n`);
}
