import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { OAuthError, oauthError, temporarilyUnavailable } from "../errors/oauth-error.ts";
import { ServiceUnavailableError } from "../errors/service-unavailable-error.ts";
import { StoreUnavailableError } from "../stores/store-unavailable-error.ts";
import { writeJson } from "./write-response.ts";

/**
 * The Express router's refusal of a path parameter that is not percent-encoded UTF-8 (`/interaction/%zz`):
 * it throws the URIError of decodeURIComponent with status 400, which would otherwise pass for a
 * body-parser failure and be described as an unreadable body.
 */
function fromPathDecoding(err: unknown): OAuthError | undefined {
  if (err instanceof URIError && (err as { status?: unknown }).status === 400)
    return oauthError("invalid_request", "the request path is not valid percent-encoded UTF-8");
  return undefined;
}

/**
 * body-parser failures are client mistakes (too large, bad encoding, a corrupt gzip body whose zlib
 * error carries only a status): they get a protocol error, never a 500.
 */
function fromBodyParser(err: { type?: unknown; status?: unknown }): OAuthError | undefined {
  if (err.type === "entity.too.large") return oauthError("invalid_request", "the request body is too large", { status: 413 });
  if (typeof err.status === "number" && err.status >= 400 && err.status < 500)
    return oauthError("invalid_request", "the request body cannot be read");
  return undefined;
}

/**
 * RFC 6749 §5.2 allows only %x20-21 / %x23-5B / %x5D-7E in error_description: no quotes, no
 * backslash, nothing outside printable ASCII. Descriptions may mention request values, so they are
 * cleaned here, in one place, rather than trusted at every throw.
 */
export function wireDescription(description: string): string {
  return description
    .replace(/"/g, "'")
    .replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "")
    .slice(0, 200);
}

/** The OAuth error an arbitrary thrown value is answered with; unknown ones are logged with their stack. */
export function toOAuthError(err: unknown, logger: Logger, context: { reqId: string; path: string }): OAuthError {
  if (err instanceof OAuthError) return err;
  if (err instanceof StoreUnavailableError || err instanceof ServiceUnavailableError) {
    // The cause was logged (scrubbed) by the store or the directory itself; its raw text may quote data.
    const service = err instanceof StoreUnavailableError ? "store" : err.service;
    logger.warn({ reqId: context.reqId, reason: err.message }, `${service} unavailable`);
    return temporarilyUnavailable(err);
  }
  const mapped = fromPathDecoding(err) ?? fromBodyParser((err ?? {}) as { type?: unknown; status?: unknown });
  if (mapped) return mapped;
  logger.error({ reqId: context.reqId, err, path: context.path }, "unhandled error");
  return oauthError("server_error", "an unexpected error occurred", { expose: false });
}

/** Writes any error in the RFC 6749 §5.2 JSON format, with its headers and no-store. */
export function writeError(res: ServerResponse, err: unknown, logger: Logger, context: { reqId: string; path: string }): void {
  const oauth = toOAuthError(err, logger, context);
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers = oauth.status === 503 ? { ...oauth.headers, "Retry-After": "5" } : oauth.headers;
  writeJson(res, oauth.status, { error: oauth.error, error_description: wireDescription(oauth.description) }, { headers });
}
