import type { Request, RequestHandler, Response } from "express";
import type { AccessTokenVerifier } from "../../tokens/access-token-verifier.ts";
import type { AccessTokenClaims } from "../../tokens/access-token.ts";
import { oauthError } from "../../errors/oauth-error.ts";
import { invalidToken } from "../../tokens/jose-errors.ts";
import { parseScope } from "../../scopes/scope.ts";
import type { DpopProofs } from "../../oauth/dpop/dpop-proofs.ts";
import { checkSenderConstraint, parseAuthorization, type PresentedToken } from "../../oauth/dpop/resource-access.ts";

/** How a resource takes DPoP-bound tokens (RFC 9449 §7): the provider's proof checks, and the API's own URL as clients call it. */
export interface DpopResourceOptions {
  /** The provider's DPoP proof verification (Infra.dpop): its replay store makes a proof single-use across every node. */
  proofs: DpopProofs;
  /**
   * The path a reverse proxy strips before the request reaches this app (`/api` when clients call
   * `https://gw.example/api/messages` and the app sees `/messages`): the proof's htu names the URL the
   * client called. Scheme and host come from the request, through Express's `trust proxy` setting
   * (X-Forwarded-Proto, X-Forwarded-Host) when the app sets it.
   */
  pathPrefix?: string;
  /**
   * The API's published base URL, fixed by configuration (e.g. the provider's issuer for its own admin
   * API): the proof's htu must be this plus the request's path, and the request's scheme and Host are
   * not consulted. Takes the place of `pathPrefix`.
   */
  baseUrl?: string;
}

export interface RequireBearerOptions {
  /** The API's own name (its resource name in scopes.yaml, or the userinfo URL): the token's aud must include it. */
  audience?: string;
  /** Every one of these scopes must be in the token. */
  scopes?: readonly string[];
  /** Also accept `access_token` in a form body (RFC 6750 §2.2), as userinfo does. Never in a query. */
  allowFormBody?: boolean;
  /**
   * RFC 9470 step-up: the token's `acr` must be one of these (a user token: client_credentials tokens
   * carry none), else 401 `insufficient_user_authentication` with `acr_values`, so the client can send
   * the user back to log in as the route needs (`acr_values` at the authorize endpoint).
   */
  acrValues?: readonly string[];
  /** RFC 9470: the user must have authenticated at most this many seconds ago (`auth_time`), else the same challenge with `max_age`. */
  maxAge?: number;
  /** Epoch milliseconds, for maxAge; the system clock by default. */
  clock?: () => number;
  /**
   * Accept DPoP-bound tokens (`Authorization: DPoP` with a `DPoP` proof header, RFC 9449 §7). Without
   * it a bound token is refused (it is never taken as a bearer token); with it, a bound token is taken
   * only with a valid proof by its key, and an unbound one only as a bearer token.
   */
  dpop?: DpopResourceOptions;
}

const CHALLENGE = 'Bearer realm="portcullis"';

/** The verified token claims of a request that passed requireBearer. */
export function bearerClaims(res: Response): AccessTokenClaims {
  return res.locals.bearer as AccessTokenClaims;
}

/**
 * Protects a route with an access token (RFC 6750; RFC 9449 with the `dpop` option — the name stays, a
 * DPoP token is an access token too): no token → 401 with a bare challenge; a bad token, one for another
 * audience, a bound token without its key's proof → 401 invalid_token (invalid_dpop_proof for a bad
 * proof, with a DPoP challenge); missing scopes → 403 insufficient_scope; an
 * authentication weaker or older than `acrValues`/`maxAge` ask → 401 insufficient_user_authentication
 * (RFC 9470). Verified claims land in res.locals.bearer (see bearerClaims).
 */
export function requireBearer(verifier: AccessTokenVerifier, options: RequireBearerOptions = {}): RequestHandler {
  const required = options.scopes ?? [];
  return async (req, res, next) => {
    try {
      const presented = presentedToken(req.headers.authorization, options.allowFormBody ? req.body : undefined);
      const claims = await verifier.verify(presented.token);
      const dpop = options.dpop;
      await checkSenderConstraint(dpop?.proofs, claims, presented, {
        dpopHeaders: req.headersDistinct.dpop,
        method: req.method,
        url: dpop === undefined ? "" : calledUrl(req, dpop),
      });
      if (options.audience !== undefined && ![claims.aud].flat().includes(options.audience)) {
        throw invalidToken("the token is not meant for this API");
      }
      checkScopes(claims, required);
      checkUserAuthentication(claims, options);
      res.locals.bearer = claims;
      // RFC 9449 §9: with nonces required, the answer hands out the next one.
      const nonce = dpop?.proofs.nonce();
      if (nonce !== undefined) res.setHeader("DPoP-Nonce", nonce);
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

/** RFC 9470 §3: the authentication behind the token is not what the route asks: a challenge that says what would be. */
function checkUserAuthentication(claims: AccessTokenClaims, options: RequireBearerOptions): void {
  const { acrValues, maxAge } = options;
  if (acrValues === undefined && maxAge === undefined) return;
  const acrMet = acrValues === undefined || (typeof claims.acr === "string" && acrValues.includes(claims.acr));
  const now = Math.floor((options.clock ?? Date.now)() / 1000);
  const ageMet = maxAge === undefined || (typeof claims.auth_time === "number" && now - claims.auth_time <= maxAge);
  if (acrMet && ageMet) return;
  const asked = [
    ...(acrValues !== undefined ? [`acr_values="${acrValues.join(" ")}"`] : []),
    ...(maxAge !== undefined ? [`max_age=${maxAge}`] : []),
  ];
  const description = acrMet ? "the user authenticated too long ago" : "the token's authentication is not one this resource accepts";
  throw oauthError("insufficient_user_authentication", description, {
    headers: {
      "WWW-Authenticate": `${CHALLENGE}, error="insufficient_user_authentication", error_description="${description}", ${asked.join(", ")}`,
    },
  });
}

/** The URL the client called, without the query: what a proof's htu names (RFC 9449 §4.3 check 10). */
function calledUrl(req: Request, { baseUrl, pathPrefix = "" }: DpopResourceOptions): string {
  const path = req.originalUrl.split("?")[0];
  return baseUrl === undefined ? `${req.protocol}://${req.host}${pathPrefix}${path}` : `${baseUrl}${path}`;
}

function presentedToken(authorization: string | undefined, body: unknown): PresentedToken {
  const fromHeader = parseAuthorization(authorization);
  const fromBody =
    body && typeof body === "object" && typeof (body as Record<string, unknown>).access_token === "string"
      ? ((body as Record<string, unknown>).access_token as string)
      : undefined;
  if (fromHeader !== undefined && fromBody !== undefined) {
    throw oauthError("invalid_request", "present the token in one place only", {
      headers: { "WWW-Authenticate": `${CHALLENGE}, error="invalid_request"` },
    });
  }
  if (fromHeader !== undefined) return fromHeader;
  if (!fromBody) throw oauthError("invalid_token", "an access token is required", { headers: { "WWW-Authenticate": CHALLENGE } });
  return { scheme: "Bearer", token: fromBody };
}
