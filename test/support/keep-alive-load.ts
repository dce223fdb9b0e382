/**
 * Clients that each keep a connection alive and send client_credentials token requests on it in a loop,
 * until the provider refuses a connection: for tests of what a stop does to requests that arrive on
 * connections already open (a reset there leaves a client unable to tell whether a token was issued).
 */
import { Agent, request } from "node:http";

const FORM = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";
/** A client that keeps failing otherwise than by a refusal gives up after this many errors (the test fails on the first anyway). */
const MAX_ERRORS = 5;

export interface LoadAnswer {
  status: number;
  /** The response's Connection header. */
  connection: string | undefined;
  /** The request went over a connection that had served an earlier one. */
  reusedSocket: boolean;
  body: string;
  /** The body arrived whole: as long as its Content-Length says. */
  complete: boolean;
}

export interface LoadClient {
  answers: LoadAnswer[];
  /** Every error other than the final refusal: ECONNRESET, "socket hang up", a body cut short. */
  errors: string[];
}

export interface KeepAliveLoad {
  clients: LoadClient[];
  /** Resolves once every client has stopped: refused, or given up after MAX_ERRORS. */
  done: Promise<void>;
  /** Closes the clients' connections (clean-up after a failed test). */
  destroy(): void;
}

/** Starts `count` clients sending token requests to `baseUrl` over kept-alive connections. */
export function keepAliveLoad(baseUrl: string, count: number): KeepAliveLoad {
  const { hostname, port } = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true });
  const clients = Array.from({ length: count }, (): LoadClient => ({ answers: [], errors: [] }));
  const send = () => tokenRequest(agent, hostname, Number(port));
  const loop = async (client: LoadClient) => {
    while (client.errors.length < MAX_ERRORS) {
      try {
        client.answers.push(await send());
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ECONNREFUSED") return;
        client.errors.push(`${code ?? "no code"}: ${(error as Error).message}`);
      }
    }
  };
  return { clients, done: Promise.all(clients.map(loop)).then(() => {}), destroy: () => agent.destroy() };
}

function tokenRequest(agent: Agent, hostname: string, port: number): Promise<LoadAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/x-www-form-urlencoded", "content-length": String(FORM.length) };
    const req = request({ agent, hostname, port, method: "POST", path: "/connect/token", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.once("error", reject);
      res.once("end", () => {
        const complete = Buffer.byteLength(body) === Number(res.headers["content-length"]);
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reusedSocket: req.reusedSocket, body, complete });
      });
    });
    req.once("error", (error: Error) => {
      error.message += req.reusedSocket ? " (on a reused connection)" : " (on a new connection)";
      reject(error);
    });
    req.end(FORM);
  });
}
