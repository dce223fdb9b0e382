/**
 * HTTP requests with bytes fetch() would refuse or normalise: the request target is sent as given
 * (latin1, so `%zz`, a lone `%` or a raw 0xFF byte arrive untouched), any method may carry a body,
 * and headers are passed through as they are. An answer that does not come is reported, not awaited.
 */
import { Agent, request, type IncomingHttpHeaders } from "node:http";

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line (each char one byte, 0x21–0xFF). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export type RawAnswer =
  | { kind: "answer"; status: number; headers: IncomingHttpHeaders; body: Buffer; text: string }
  /** No answer in time, or the connection ended without one. */
  | { kind: "none"; reason: string };

// Reused connections keep a few thousand requests from costing a few thousand TCP handshakes.
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs: number): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const outgoing = request({ agent, host: hostname, port, method: req.method, path: req.target, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (err) => resolve({ kind: "none", reason: `the answer broke off: ${err.message}` }));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ kind: "answer", status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString("utf8") });
      });
    });
    outgoing.setTimeout(timeoutMs, () => {
      outgoing.destroy();
      resolve({ kind: "none", reason: `no answer within ${timeoutMs} ms` });
    });
    outgoing.on("error", (err) => resolve({ kind: "none", reason: `the connection failed: ${err.message}` }));
    outgoing.end(req.body);
  });
}

/** Closes the kept-alive connections (before the provider under test shuts down). */
export function closeRawConnections(): void {
  agent.destroy();
}
