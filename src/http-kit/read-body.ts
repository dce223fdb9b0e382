import type { IncomingMessage } from "node:http";
import { gunzipSync, inflateSync } from "node:zlib";
import { invalidRequest, oauthError } from "../errors/oauth-error.ts";

const tooLarge = () => oauthError("invalid_request", "the request body is too large", { status: 413, headers: { Connection: "close" } });

/**
 * Reads a request body of at most `maxBytes` (before and after decompression). A declared or actual
 * size over the limit is a 413 without reading further; a body that does not decode is a 400.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (size > maxBytes) return; // refused already: the rest is discarded as it flows; the answer closes the connection
      size += chunk.length;
      if (size > maxBytes) return reject(tooLarge());
      chunks.push(chunk);
    });
    req.on("error", () => reject(invalidRequest("the request body cannot be read")));
    req.on("end", () => {
      if (size > maxBytes) return;
      try {
        resolve(decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), req.headers["content-encoding"], maxBytes));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function decode(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer {
  const coding = encoding?.trim().toLowerCase();
  if (coding === undefined || coding === "" || coding === "identity") return body;
  if (coding !== "gzip" && coding !== "deflate") throw oauthError("invalid_request", "unsupported Content-Encoding", { status: 415 });
  try {
    return (coding === "gzip" ? gunzipSync : inflateSync)(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw invalidRequest("the request body cannot be read");
  }
}
