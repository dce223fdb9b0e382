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
}

/**
 * Every error code this provider sends: RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1,
 * OIDC Core §3.1.2.6 and RFC 6749's temporarily_unavailable, plus `not_found` for an unknown route of
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
  | "unsupported_token_type"
  | "login_required"
  | "interaction_required"
  | "consent_required"
  | "request_not_supported"
  | "request_uri_not_supported"
  | "registration_not_supported"
  | "not_found";

export class OAuthError extends Error {
  override readonly name = "OAuthError";
  readonly headers: Record<string, string>;
  readonly allowRedirect: boolean;
  readonly expose: boolean;

  constructor(
    readonly status: number,
    readonly error: OAuthErrorCode,
    readonly description: string,
    options: OAuthErrorOptions = {},
  ) {
    super(`${error}: ${description}`, { cause: options.cause });
    this.headers = options.headers ?? {};
    this.allowRedirect = options.allowRedirect ?? false;
    this.expose = options.expose ?? true;
  }
}

export const invalidRequest = (description: string) => new OAuthError(400, "invalid_request", description);
export const invalidScope = (description: string) => new OAuthError(400, "invalid_scope", description);
export const invalidGrant = (description: string) => new OAuthError(400, "invalid_grant", description);
export const unauthorizedClient = (description: string) => new OAuthError(400, "unauthorized_client", description);
export const unsupportedGrantType = (description: string) => new OAuthError(400, "unsupported_grant_type", description);
export const temporarilyUnavailable = (cause: unknown) =>
  new OAuthError(503, "temporarily_unavailable", "the service is temporarily unavailable, try again later", { cause });

/** 401 invalid_client; RFC 6749 §5.2 requires WWW-Authenticate when the client tried HTTP Basic. */
export function invalidClient(description: string, usedBasic: boolean): OAuthError {
  return new OAuthError(401, "invalid_client", description, {
    headers: usedBasic ? { "WWW-Authenticate": 'Basic realm="portcullis", charset="UTF-8"' } : {},
  });
}
