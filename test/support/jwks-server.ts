import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JWK } from "jose";

/**
 * A client's key server on loopback, for jwks_uri tests: it publishes what the test sets, counts the
 * fetches, and can answer an error or any raw body instead.
 */
export interface JwksServer {
  url: string;
  /** How many times the JWK Set was asked for. */
  readonly fetches: number;
  publish(keys: JWK[], cacheControl?: string): void;
  /** Answer this status and body instead of the set until publish() is called again. */
  fail(status: number, body?: string): void;
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  let fetches = 0;
  let answer = { status: 200, body: JSON.stringify({ keys: [] }), headers: {} as Record<string, string> };
  const server: Server = createServer((req, res) => {
    fetches++;
    req.resume();
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    get fetches() {
      return fetches;
    },
    publish(keys, cacheControl) {
      answer = {
        status: 200,
        body: JSON.stringify({ keys }),
        headers: cacheControl === undefined ? {} : { "cache-control": cacheControl },
      };
    },
    fail(status, body = "") {
      answer = { status, body, headers: {} };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
