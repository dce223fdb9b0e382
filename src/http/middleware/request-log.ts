import type { Logger } from "pino";
import type { RequestHandler } from "express";
import { beginRequest } from "../request-log.ts";

/** Express's end of request logging (request-log.ts): the id also lands in res.locals for handlers. */
export function requestLog(logger: Logger, enabled: boolean): RequestHandler {
  return (req, res, next) => {
    const reqId = beginRequest(req, res, req.path, enabled ? logger : undefined);
    res.locals.reqId = reqId;
    res.setHeader("X-Request-Id", reqId);
    next();
  };
}
