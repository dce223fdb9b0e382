import type { RequestHandler } from "express";

/**
 * Defaults for every response: no sniffing, no referrer, and no framing. Pages that may be framed
 * (iframe_authz) or that load resources set their own Content-Security-Policy over this one.
 */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
  next();
};
