import type { Response } from "express";

/**
 * Writes a JSON body. Protocol responses carry tokens or decisions about them, so none of them may be
 * cached (RFC 6749 §5.1).
 */
export function sendJson(res: Response, status: number, body: unknown, cacheable = false): void {
  res.status(status);
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  if (!cacheable) {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
  }
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}
