import type { RequestHandler } from "express";

/**
 * A route handler serving a method page's script (plugins mount it in their routes; the partial loads
 * it with `<script nonce="{{nonce}}" src="{{methodPath}}/<name>.js">`). `no-cache`: a deploy's new
 * script is picked up at once, revalidated rather than re-downloaded.
 */
export function methodPageScript(source: string): RequestHandler {
  return (_req, res) => {
    res.set({ "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" }).send(source);
  };
}
