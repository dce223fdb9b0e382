import type { Response } from "express";
import { SECURITY_HEADERS } from "../../http-kit/security-headers.ts";
import { html, type Html } from "./html.ts";

export interface PageOptions {
  status?: number;
  /** The page's Content-Security-Policy; the default allows no script, inline styles and posting forms to itself. */
  csp?: string;
  /** Reload the page after this many seconds (a waiting page). */
  refreshSeconds?: number;
}

const DEFAULT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5}" +
  "dt{font-weight:600}dd{margin:0 0 .5rem 0;word-break:break-all}button{margin:.25rem .5rem .25rem 0}.error{color:#a00}";

/**
 * Writes a demo page: never cached (it holds per-user results), never framed, and no Referer (the
 * redirect URIs carry codes in their query). The title and body are Html, so every value in them was
 * escaped by the `html` tag.
 */
export function sendPage(res: Response, title: string, body: Html, options: PageOptions = {}): void {
  res
    .status(options.status ?? 200)
    .set({
      ...SECURITY_HEADERS,
      "Content-Security-Policy": options.csp ?? DEFAULT_CSP,
      "Cache-Control": "no-store",
      "Content-Type": "text/html; charset=utf-8",
    })
    .send(
      html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${
        options.refreshSeconds === undefined ? "" : html`<meta http-equiv="refresh" content="${options.refreshSeconds}">`
      }<title>${title}</title><style>${STYLE}</style></head><body><h1>${title}</h1>${body}</body></html>`.value,
    );
}
