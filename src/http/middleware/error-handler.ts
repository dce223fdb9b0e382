import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { writeError } from "../write-error.ts";
import { requestIdOf } from "../write-response.ts";

/** The Express end of the one error path (write-error.ts): every error becomes the wire format. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    writeError(res, err, logger, { reqId: requestIdOf(res), path: req.path });
  };
}
