/**
 * A small SMS gateway on loopback (node:http) for tests of the SMS code method: it records every
 * request (method, path and query, headers, body) and answers with a configurable status.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface GatewayRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SmsTestGateway {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  requests: GatewayRequest[];
  /** The status it answers (default 202). */
  status: number;
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** The parsed JSON bodies sent to `to` (gateways configured with the default JSON template). */
  messagesTo(to: string): Array<{ to: string; text: string }>;
  close(): Promise<void>;
}

export async function startSmsTestGateway(): Promise<SmsTestGateway> {
  const requests: GatewayRequest[] = [];
  const state = { status: 202, delayMs: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      setTimeout(() => {
        res.writeHead(state.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: `msg-${requests.length}` }));
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    messagesTo(to) {
      return requests
        .filter((r) => r.headers["content-type"]?.startsWith("application/json"))
        .map((r) => JSON.parse(r.body) as { to: string; text: string })
        .filter((m) => m.to === to);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
