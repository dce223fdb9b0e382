import type { RequestHandler } from "express";
import { beginRequest, type RequestLines } from "../../http-kit/request-log.ts";

/**
 * Express's end of request logging (request-log.ts). Pages that do not go through writeJson still
 * echo the id, so it is set as a header here too; handlers read it with requestIdOf(res).
 */
export function requestLog(lines: RequestLines, enabled: boolean): RequestHandler {
  return (req, res, next) => {
    res.setHeader("X-Request-Id", beginRequest(req, res, req.path, enabled ? lines : undefined));
    next();
  };
}
