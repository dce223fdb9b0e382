import type { IncomingMessage, ServerResponse } from "node:http";

/** A file kept in memory with its content type and entity tag. */
export interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

/** Writes the file (GET, or headers only for HEAD; 304 when the browser's copy has this ETag). */
export function sendStaticFile(req: IncomingMessage, res: ServerResponse, file: StaticFile, cacheControl: string): void {
  const headers = ["Content-Type", file.type, "Cache-Control", cacheControl, "ETag", file.etag, "X-Content-Type-Options", "nosniff"];
  if (req.headers["if-none-match"] === file.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, headers.concat("Content-Length", String(file.body.length)));
  res.end(req.method === "HEAD" ? undefined : file.body);
}
