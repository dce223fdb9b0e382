import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
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

/**
 * The logger of the one line per request. That line is built from an allow-list (request id, method,
 * path, status, duration), so the logger's redaction — a safety net for other log lines — has nothing to
 * find in it and is skipped: it was a third of the line's cost on the hot endpoints.
 */
export function requestLineLogger(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}

/**
 * Gives the request an id (X-Request-Id when well-formed, else a new one), keeps it on the response
 * for the writers to echo, and logs one line when the response finishes. Only the path is logged:
 * query strings and bodies carry codes, tokens and passwords.
 */
export function beginRequest(req: IncomingMessage, res: ServerResponse, path: string, logger: Logger | undefined): string {
  const incoming = req.headers["x-request-id"];
  const reqId = typeof incoming === "string" && INCOMING_ID.test(incoming) ? incoming : nextRequestId();
  (res as ServerResponse & { [REQUEST_ID]?: string })[REQUEST_ID] = reqId;
  if (logger) {
    const started = performance.now();
    // `on`, not `once`: a response finishes at most once, and once's wrapper is an allocation per request.
    res.on("finish", () => {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      logger.info({ reqId, method: req.method, path, status: res.statusCode, ms }, "request");
    });
  }
  return reqId;
}
