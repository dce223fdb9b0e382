import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** A static file served under a name that carries its content hash, so it can be cached for good. */
export interface HashedFile {
  /** `<prefix>/<stem>.<hash>.<ext>` */
  url: string;
  body: Buffer;
  type: string;
  etag: string;
}

export function hashedFile(prefix: string, stem: string, ext: string, body: Buffer, type: string): HashedFile {
  const hash = createHash("sha256").update(body).digest("hex");
  return { url: `${prefix}/${stem}.${hash.slice(0, 16)}.${ext}`, body, type, etag: `"${hash}"` };
}

/** Writes the file (GET, or headers only for HEAD; 304 when the browser has it). */
export function sendHashedFile(req: IncomingMessage, res: ServerResponse, file: HashedFile): void {
  const headers = [
    "Content-Type", file.type,
    // The URL changes with the content, so a copy never goes stale.
    "Cache-Control", "public, max-age=31536000, immutable",
    "ETag", file.etag,
    "X-Content-Type-Options", "nosniff",
  ];
  if (req.headers["if-none-match"] === file.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, headers.concat("Content-Length", String(file.body.length)));
  res.end(req.method === "HEAD" ? undefined : file.body);
}
