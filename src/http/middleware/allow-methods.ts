import type { RequestHandler } from "express";
import { OAuthError } from "../../oauth/oauth-error.ts";

/** 405 with an Allow header for any other method. */
export function allowMethods(...methods: string[]): RequestHandler {
  const allow = methods.join(", ");
  return (req, _res, next) => {
    if (methods.includes(req.method)) return next();
    next(new OAuthError(405, "invalid_request", `use ${allow}`, { headers: { Allow: allow } }));
  };
}
