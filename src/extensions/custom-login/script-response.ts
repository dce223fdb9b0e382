import type { ServerResponse } from "node:http";

/**
 * A script for a `<script src>` tag on another site's page: never cached (each load is a new scan
 * session with its own secret), and loadable by any site's page, also one isolated by COEP
 * (Cross-Origin-Resource-Policy). No CORS header: a script tag needs none, and no page reads it otherwise.
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
