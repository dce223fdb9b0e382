import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

/**
 * The HTTP side of the ceiling servers (workers/ceiling-*.ts): node:http as it comes, exact-path routes,
 * a form body read into URLSearchParams, and answers with every header in one writeHead. What any Node
 * authorization server must do at least; nothing the provider could leave out.
 */

export type Handler = (req: IncomingMessage, res: ServerResponse, query: string) => void;

/** A token request is a few hundred bytes; anything much larger is refused rather than buffered. */
const MAX_FORM_BYTES = 16 * 1024;

/** RFC 6749 §5.1: token responses must not be cached. */
const JSON_HEADERS = ["Content-Type", "application/json; charset=utf-8", "Cache-Control", "no-store", "Pragma", "no-cache"];

/** One handler per "METHOD /path" (the query string, without its "?", is passed on); 404 for anything else. */
export function routes(table: Readonly<Record<string, Handler>>): RequestListener {
  const byRoute = new Map(Object.entries(table));
  return (req, res) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const handler = byRoute.get(`${req.method} ${q < 0 ? url : url.slice(0, q)}`);
    if (handler) return handler(req, res, q < 0 ? "" : url.slice(q + 1));
    res.writeHead(404, ["Content-Length", "0"]);
    res.end();
  };
}

/** The application/x-www-form-urlencoded body; undefined for another content type or an oversized body. */
export function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve, reject) => {
    const isForm = req.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ?? false;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (isForm && size <= MAX_FORM_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (!isForm || size > MAX_FORM_BYTES) return resolve(undefined);
      resolve(new URLSearchParams((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString()));
    });
    req.on("error", reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, [...JSON_HEADERS, "Content-Length", String(Buffer.byteLength(text))]);
  res.end(text);
}

/** An OAuth error response (RFC 6749 §5.2): 401 for client authentication, 400 otherwise. */
export function sendError(res: ServerResponse, error: string): void {
  sendJson(res, error === "invalid_client" ? 401 : 400, { error });
}

/** A 303 with no body (and no chunked framing). */
export function sendSeeOther(res: ServerResponse, location: string, extraHeaders: readonly string[] = []): void {
  res.writeHead(303, ["Location", location, "Cache-Control", "no-store", "Content-Length", "0", ...extraHeaders]);
  res.end();
}
