import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { RequestHandler } from "express";

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * One log line per request with a request id (taken from X-Request-Id when it is well-formed, else
 * new) that is echoed back. Only the path is logged: query strings carry codes and tokens.
 */
export function requestLog(logger: Logger, enabled: boolean): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers["x-request-id"];
    const reqId = typeof incoming === "string" && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.locals.reqId = reqId;
    res.setHeader("X-Request-Id", reqId);
    if (enabled) {
      const started = process.hrtime.bigint();
      res.on("finish", () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info({ reqId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, "request");
      });
    }
    next();
  };
}
