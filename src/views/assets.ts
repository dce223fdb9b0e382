import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendStaticFile } from "../http-kit/send-static-file.ts";
import { extname, join } from "node:path";
import { VIEWS_DIR } from "./views-dir.ts";

/**
 * The static files of the pages (views/assets/), read once at start-up and served from memory. Only
 * the file names found there at start-up are served: a request path is looked up in that table, never
 * joined to a directory, so `..`, encoded slashes or absolute paths cannot reach other files.
 */
export interface Asset {
  body: Buffer;
  type: string;
  /** A strong ETag: the SHA-256 of the body. */
  etag: string;
}

const TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};

/** Reads every regular file with a known type from a directory (no subdirectories). */
export function loadAssets(dir: string): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const type = TYPES[extname(entry.name).toLowerCase()];
    if (!entry.isFile() || type === undefined) continue;
    const body = readFileSync(join(dir, entry.name));
    assets.set(entry.name, { body, type, etag: `"${createHash("sha256").update(body).digest("base64url")}"` });
  }
  return assets;
}

const ASSETS = loadAssets(join(VIEWS_DIR, "assets"));

/**
 * The asset at `path`: the part of the URL path after the assets prefix (`portcullis.css`, a leading
 * `/` allowed), or undefined for any name that is not a file of views/assets.
 */
export function serveAsset(path: string): Asset | undefined {
  return ASSETS.get(path.startsWith("/") ? path.slice(1) : path);
}

/**
 * A node:http handler for `<prefix>/<name>`: writes the asset (or 304 for a matching If-None-Match)
 * and returns true, or returns false and writes nothing when there is no such asset.
 */
export function handleAsset(req: IncomingMessage, res: ServerResponse, prefix = "/assets"): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const pathname = (req.url ?? "").split("?", 1)[0]!;
  if (!pathname.startsWith(`${prefix}/`)) return false;
  const asset = serveAsset(pathname.slice(prefix.length + 1));
  if (!asset) return false;
  sendStaticFile(req, res, asset, "public, max-age=3600");
  return true;
}
