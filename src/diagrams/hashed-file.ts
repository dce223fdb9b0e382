import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendStaticFile, type StaticFile } from "../http-kit/send-static-file.ts";

/** A static file served under a name that carries its content hash, so it can be cached for good. */
export interface HashedFile extends StaticFile {
  /** `<prefix>/<stem>.<hash>.<ext>` */
  url: string;
}

export function hashedFile(prefix: string, stem: string, ext: string, body: Buffer, type: string): HashedFile {
  const hash = createHash("sha256").update(body).digest("hex");
  return { url: `${prefix}/${stem}.${hash.slice(0, 16)}.${ext}`, body, type, etag: `"${hash}"` };
}

/** Writes the file (GET, or headers only for HEAD; 304 when the browser has it). */
export function sendHashedFile(req: IncomingMessage, res: ServerResponse, file: HashedFile): void {
  // The URL changes with the content, so a copy never goes stale.
  sendStaticFile(req, res, file, "public, max-age=31536000, immutable");
}
