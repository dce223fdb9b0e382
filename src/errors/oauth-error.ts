/**
 * The one error type of the protocol layer. Endpoint steps throw it; one error handler turns it into
 * the wire format (RFC 6749 §5.2 JSON, RFC 6750 WWW-Authenticate, or an authorize redirect).
 * Anything that is not an OAuthError becomes `server_error` with a generic text and is logged with its stack.
 */
export interface OAuthErrorOptions {
  /** Extra response headers, e.g. WWW-Authenticate. */
  headers?: Record<string, string>;
  /** Whether the error may be sent to the client's redirect_uri (authorize only, once client and redirect are trusted). */
  allowRedirect?: boolean;
  /** Whether error_description may be shown to the caller. server_error hides its cause. */
  expose?: boolean;
  cause?: unknown;
  /**
   * The HTTP status where it is not the code's own (a rate limit's 429 temporarily_unavailable, 405, 413
   * and 415 invalid_request, a device request's 400 access_denied).
   */
  status?: number;
}

/**
 * Every error code this provider sends: RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1,
 * OIDC Core §3.1.2.6 (invalid_request_uri also RFC 9126 §4), OpenID Connect Core Unmet Authentication Requirements 1.0
 * and RFC 6749's temporarily_unavailable, RFC 9449's invalid_dpop_proof and use_dpop_nonce (400 at the token endpoint,
 * 401 with a DPoP challenge at a resource), plus `not_found` for an unknown route of
 * a JSON API. A typo or an invented code is a type error, not a wire format surprise for a client.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_token"
  | "insufficient_scope"
  | "insufficient_user_authentication"
  | "unsupported_token_type"
  | "login_required"
  | "interaction_required"
  | "consent_required"
  | "unmet_authentication_requirements"
  | "request_not_supported"
  | "request_uri_not_supported"
  | "invalid_request_uri"
  | "registration_not_supported"
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  | "not_found";

export class OAuthError extends Error {
  static readonly code: string = "ERR_OAUTH";
  readonly code: string = "ERR_OAUTH";
  readonly status: number;
  readonly error: OAuthErrorCode;
  readonly description: string;
  override readonly name = "OAuthError";
  readonly headers: Record<string, string>;
  readonly allowRedirect: boolean;
  readonly expose: boolean;

  constructor(status: number, error: OAuthErrorCode, description: string, options: OAuthErrorOptions = {}) {
    super(`${error}: ${description}`, { cause: options.cause });
    this.status = status;
    this.error = error;
    this.description = description;
    this.headers = options.headers ?? {};
    this.allowRedirect = options.allowRedirect ?? false;
    this.expose = options.expose ?? true;
  }
}

/** The HTTP status each code answers with where it is not a redirect (the status says nothing in a redirect). */
const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 403,
  server_error: 500,
  temporarily_unavailable: 503,
  invalid_token: 401,
  insufficient_scope: 403,
  insufficient_user_authentication: 401,
  unsupported_token_type: 400,
  login_required: 400,
  interaction_required: 400,
  consent_required: 400,
  unmet_authentication_requirements: 400,
  request_not_supported: 400,
  request_uri_not_supported: 400,
  invalid_request_uri: 400,
  registration_not_supported: 400,
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  not_found: 404,
};

/**
 * The one factory, and the only place outside this folder's own helpers that makes an OAuthError (a
 * test holds every other file to it): an error by its code, with the code's status unless `status` says otherwise.
 */
export const oauthError = (error: OAuthErrorCode, description: string, options: OAuthErrorOptions = {}) =>
  new OAuthError(options.status ?? STATUS[error], error, description, options);

export const invalidRequest = (description: string) => oauthError("invalid_request", description);
export const invalidScope = (description: string) => oauthError("invalid_scope", description);
export const invalidGrant = (description: string) => oauthError("invalid_grant", description);
export const unauthorizedClient = (description: string) => oauthError("unauthorized_client", description);
export const unsupportedGrantType = (description: string) => oauthError("unsupported_grant_type", description);
/**
 * A backend (the store) that is down. At authorize, once the client's redirect_uri is known good, the
 * browser goes back to the client with it (RFC 6749 §4.1.2.1), which can offer to try again; elsewhere 503.
 */
export const temporarilyUnavailable = (cause: unknown) =>
  oauthError("temporarily_unavailable", "the service is temporarily unavailable, try again later", { cause, allowRedirect: true });

/** 401 invalid_client; RFC 6749 §5.2 requires WWW-Authenticate when the client tried HTTP Basic. */
export function invalidClient(description: string, usedBasic: boolean): OAuthError {
  return oauthError("invalid_client", description, {
    headers: usedBasic ? { "WWW-Authenticate": 'Basic realm="portcullis", charset="UTF-8"' } : {},
  });
}
