import type { ServerResponse } from "node:http";

/**
 * A script for a `<script src>` tag on another site's page: never cached (each load is a new scan
 * session with its own secret), and readable from any origin (the page, not a cookie, holds the secret).
 */
export function writeScript(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "Content-Type": "application/javascript; charset=utf-8",
    "Cache-Control": "no-store",
    Pragma: "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "cross-origin",
    "Content-Length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}
