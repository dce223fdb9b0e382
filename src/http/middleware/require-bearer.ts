import type { RequestHandler, Response } from "express";
import type { AccessTokenVerifier } from "../../tokens/access-token-verifier.ts";
import type { AccessTokenClaims } from "../../tokens/access-token.ts";
import { oauthError } from "../../errors/oauth-error.ts";
import { invalidToken } from "../../tokens/jose-errors.ts";
import { parseScope } from "../../scopes/scope.ts";

export interface RequireBearerOptions {
  /** The API's own name (its resource name in scopes.yaml, or the userinfo URL): the token's aud must include it. */
  audience?: string;
  /** Every one of these scopes must be in the token. */
  scopes?: readonly string[];
  /** Also accept `access_token` in a form body (RFC 6750 §2.2), as userinfo does. Never in a query. */
  allowFormBody?: boolean;
}

const CHALLENGE = 'Bearer realm="portcullis"';

/** The verified token claims of a request that passed requireBearer. */
export function bearerClaims(res: Response): AccessTokenClaims {
  return res.locals.bearer as AccessTokenClaims;
}

/**
 * Protects a route with an access token (RFC 6750): no token → 401 with a bare challenge; a bad
 * token, or one for another audience → 401 invalid_token; missing scopes → 403 insufficient_scope. Verified claims land in
 * res.locals.bearer (see bearerClaims).
 */
export function requireBearer(verifier: AccessTokenVerifier, options: RequireBearerOptions = {}): RequestHandler {
  const required = options.scopes ?? [];
  return async (req, res, next) => {
    try {
      const token = presentedToken(req.headers.authorization, options.allowFormBody ? req.body : undefined);
      const claims = await verifier.verify(token);
      if (options.audience !== undefined && ![claims.aud].flat().includes(options.audience)) {
        throw invalidToken("the token is not meant for this API");
      }
      checkScopes(claims, required);
      res.locals.bearer = claims;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * After requireBearer without `scopes`: every one of `scopes` must be in the verified token, else 403
 * insufficient_scope. For a route that must know who called even when the call is refused (the admin
 * API audits the calling client).
 */
export function requireScopes(scopes: readonly string[]): RequestHandler {
  return (_req, res, next) => {
    try {
      checkScopes(bearerClaims(res), scopes);
      next();
    } catch (err) {
      next(err);
    }
  };
}

function checkScopes(claims: AccessTokenClaims, required: readonly string[]): void {
  const granted = new Set(parseScope(claims.scope));
  const missing = required.filter((s) => !granted.has(s));
  if (missing.length > 0) {
    throw oauthError("insufficient_scope", `the token lacks scope ${missing.join(" ")}`, {
      headers: { "WWW-Authenticate": `${CHALLENGE}, error="insufficient_scope", scope="${required.join(" ")}"` },
    });
  }
}

function presentedToken(authorization: string | undefined, body: unknown): string {
  const fromHeader = authorization !== undefined && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  const fromBody =
    body && typeof body === "object" && typeof (body as Record<string, unknown>).access_token === "string"
      ? ((body as Record<string, unknown>).access_token as string)
      : undefined;
  if (fromHeader !== undefined && fromBody !== undefined) {
    throw oauthError("invalid_request", "present the token in one place only", {
      headers: { "WWW-Authenticate": `${CHALLENGE}, error="invalid_request"` },
    });
  }
  const token = fromHeader ?? fromBody;
  if (!token) throw oauthError("invalid_token", "an access token is required", { headers: { "WWW-Authenticate": CHALLENGE } });
  return token;
}
