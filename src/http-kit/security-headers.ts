import type { RequestHandler } from "express";

/**
 * Defaults for every response: no sniffing, no referrer, and no framing. Pages that may be framed
 * (iframe_authz) or that load resources set their own Content-Security-Policy over this one.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
};

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  next();
};
