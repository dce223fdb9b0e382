import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { answerWithErrorPage, type BrowserPages } from "../../views/browser-pages.ts";
import { writeError } from "../../http-kit/write-error.ts";
import { requestIdOf } from "../../http-kit/write-response.ts";

/**
 * The Express end of the one error path (write-error.ts). With `pages` (the provider's own app), a
 * browser (it prefers HTML) gets an error page; API callers (the trusted app's device API, plugin routes
 * called by scripts, a group API using requireBearer) get the JSON format.
 */
export function errorHandler(logger: Logger, pages?: BrowserPages): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const context = { reqId: requestIdOf(res), path: req.path };
    if (!pages || req.accepts(["json", "html"]) !== "html") return writeError(res, err, logger, context);
    answerWithErrorPage(pages, logger, req, res, err, context);
  };
}
