import type { Logger } from "pino";
import type { RequestHandler } from "express";
import { beginRequest } from "../../http-kit/request-log.ts";

/**
 * Express's end of request logging (request-log.ts). Pages that do not go through writeJson still
 * echo the id, so it is set as a header here too; handlers read it with requestIdOf(res).
 */
export function requestLog(logger: Logger, enabled: boolean): RequestHandler {
  return (req, res, next) => {
    res.setHeader("X-Request-Id", beginRequest(req, res, req.path, enabled ? logger : undefined));
    next();
  };
}
