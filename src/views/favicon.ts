import type { IncomingMessage, ServerResponse } from "node:http";
import { sendStaticFile } from "../http-kit/send-static-file.ts";
import { serveAsset } from "./assets.ts";

/**
 * The site icon at the two addresses browsers ask for: `/favicon.ico`, which every browser requests
 * on its own whatever the page says, and `/favicon.svg`, which the layout links for browsers that
 * draw SVG icons. Both are files of views/assets.
 */
export const FAVICON_PATHS: Readonly<Record<string, string>> = { "/favicon.ico": "favicon.ico", "/favicon.svg": "favicon.svg" };

/**
 * Browsers keep an icon for long and revalidate it rarely anyway; a month spares a request per page
 * view, and the ETag makes the revalidation after a changed icon a cheap 304 or a fresh copy.
 */
export const FAVICON_CACHE_CONTROL = "public, max-age=2592000";

/** A node:http handler: writes the icon and returns true, or returns false for any other request. */
export function handleFavicon(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const name = FAVICON_PATHS[(req.url ?? "").split("?", 1)[0]!];
  const icon = name === undefined ? undefined : serveAsset(name);
  if (!icon) return false;
  sendStaticFile(req, res, icon, FAVICON_CACHE_CONTROL);
  return true;
}
