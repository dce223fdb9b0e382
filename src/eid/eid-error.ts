import { OAuthError, type OAuthErrorCode } from "../errors/oauth-error.ts";

/**
 * Why an eID login did not finish:
 * - `unavailable`: the upstream did not answer, answered 5xx, or said it is unavailable (retry later);
 * - `access_denied`: the user did not log in at the upstream (cancelled, refused, no session there);
 * - `invalid_callback`: the callback does not belong to this login (state missing or different);
 * - `invalid_response`: the upstream's answer failed validation (ID token, nonce, issuer, a refused code, no sub);
 * - `unmet_authentication_requirements`: the upstream performed less than an essential acr asked of it.
 */
export type EidFailure = "unavailable" | "access_denied" | "invalid_callback" | "invalid_response" | "unmet_authentication_requirements";

const WIRE: Record<EidFailure, { status: number; error: OAuthErrorCode }> = {
  unavailable: { status: 503, error: "temporarily_unavailable" },
  access_denied: { status: 403, error: "access_denied" },
  invalid_callback: { status: 400, error: "invalid_request" },
  invalid_response: { status: 502, error: "server_error" },
  unmet_authentication_requirements: { status: 400, error: "unmet_authentication_requirements" },
};

/**
 * The one error of the eID broker, an OAuthError so that the authorize endpoint and the error pages
 * answer it like any other: its description is meant for the user and the client and never quotes
 * the upstream's own text (that goes to the log through `cause`). It may be sent to the client's
 * redirect URI: an eID login only starts after the authorize request was validated.
 */
export class EidError extends OAuthError {
  static override readonly code: string = "ERR_EID";
  override readonly code: string = "ERR_EID";
  readonly failure: EidFailure;
  readonly upstream: string;

  constructor(failure: EidFailure, upstream: string, description: string, options: { cause?: unknown } = {}) {
    super(WIRE[failure].status, WIRE[failure].error, description, { allowRedirect: true, ...options });
    this.failure = failure;
    this.upstream = upstream;
  }
}
