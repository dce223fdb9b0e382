import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type DestinationStream, type Logger } from "pino";
import { REQUEST_ID } from "./write-response.ts";

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/*
 * A generated request id: this process's random prefix and a counter. Ids only have to be unique (they
 * tie a response to its log line), not unguessable, and a UUID per request was ~2% of a token request's
 * CPU besides the signature. 48 random bits per process keep ids apart across workers and nodes.
 */
const PROCESS_PREFIX = `${randomBytes(6).toString("base64url")}-`;
let requestCount = 0;
const nextRequestId = () => PROCESS_PREFIX + (++requestCount).toString(36);

/** Where the one line per request goes (requestLines). */
export interface RequestLines {
  write(reqId: string, method: string | undefined, path: string, status: number, ms: number): void;
}

/**
 * The one line per request, written as pino writes `logger.info({ reqId, method, path, status, ms },
 * "request")` — same keys, same order, same stream, same level check, the logger's bindings and time —
 * but built directly: pino's generic path (walking the object, its own string escaping, redaction) was
 * ~4% of an SSO code flow's CPU besides the signatures, for a line whose shape never changes.
 * test/http/request-line.test.ts holds it byte for byte to pino's output.
 */
export function requestLines(logger: Logger): RequestLines {
  const internals = logger as unknown as { [key: symbol]: unknown };
  const bindings = (internals[pino.symbols.chindingsSym] as string | undefined) ?? "";
  const time = internals[pino.symbols.timeSym] as () => string;
  const stream = internals[pino.symbols.streamSym] as DestinationStream;
  const info = logger.levels.values.info!;
  return {
    write(reqId, method, path, status, ms) {
      if (!logger.isLevelEnabled("info")) return;
      const methodField = method === undefined ? "" : `,"method":${JSON.stringify(method)}`;
      stream.write(
        `{"level":${info}${time()}${bindings},"reqId":${JSON.stringify(reqId)}${methodField},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
      );
    },
  };
}

/**
 * Gives the request an id (X-Request-Id when well-formed, else a new one), keeps it on the response
 * for the writers to echo, and logs one line when the response finishes. Only the path is logged:
 * query strings and bodies carry codes, tokens and passwords.
 */
export function beginRequest(req: IncomingMessage, res: ServerResponse, path: string, lines: RequestLines | undefined): string {
  const incoming = req.headers["x-request-id"];
  const reqId = typeof incoming === "string" && INCOMING_ID.test(incoming) ? incoming : nextRequestId();
  (res as ServerResponse & { [REQUEST_ID]?: string })[REQUEST_ID] = reqId;
  if (lines) {
    const started = performance.now();
    // `on`, not `once`: a response finishes at most once, and once's wrapper is an allocation per request.
    res.on("finish", () => lines.write(reqId, req.method, path, res.statusCode, Math.round((performance.now() - started) * 100) / 100));
  }
  return reqId;
}
