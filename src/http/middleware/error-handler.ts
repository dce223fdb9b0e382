import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { OAuthError, temporarilyUnavailable } from "../../oauth/oauth-error.ts";
import { StoreUnavailableError } from "../../stores/store-unavailable-error.ts";
import { sendJson } from "../send-json.ts";

/**
 * body-parser failures are client mistakes (too large, bad encoding, a corrupt gzip body whose zlib
 * error carries only a status): they get a protocol error, never a 500.
 */
function fromBodyParser(err: { type?: unknown; status?: unknown }): OAuthError | undefined {
  if (err.type === "entity.too.large") return new OAuthError(413, "invalid_request", "the request body is too large");
  if (typeof err.status === "number" && err.status >= 400 && err.status < 500) return new OAuthError(400, "invalid_request", "the request body cannot be read");
  return undefined;
}

/**
 * RFC 6749 §5.2 allows only %x20-21 / %x23-5B / %x5D-7E in error_description: no quotes, no
 * backslash, nothing outside printable ASCII. Descriptions may mention request values, so they are
 * cleaned here, in one place, rather than trusted at every throw.
 */
export function wireDescription(description: string): string {
  return description.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "").slice(0, 200);
}

/** Turns every error into the wire format. Unknown errors become a generic server_error, logged with their stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let oauth: OAuthError;
    if (err instanceof OAuthError) oauth = err;
    else if (err instanceof StoreUnavailableError) {
      logger.warn({ reqId: res.locals.reqId, backend: err.backend, cause: String(err.cause ?? "") }, "store unavailable");
      oauth = temporarilyUnavailable(err);
    } else {
      oauth = fromBodyParser(err ?? {}) ?? new OAuthError(500, "server_error", "an unexpected error occurred", { expose: false });
      if (oauth.status === 500) logger.error({ reqId: res.locals.reqId, err, path: req.path }, "unhandled error");
    }
    if (res.headersSent) return res.end();
    for (const [name, value] of Object.entries(oauth.headers)) res.setHeader(name, value);
    if (oauth.status === 503) res.setHeader("Retry-After", "5");
    sendJson(res, oauth.status, { error: oauth.error, error_description: wireDescription(oauth.description) });
  };
}
