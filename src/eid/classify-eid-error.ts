import * as client from "openid-client";
import { EidError } from "./eid-error.ts";

/** Upstream authorization errors that mean "the user did not log in there" (OIDC Core §3.1.2.6, RFC 6749 §4.1.2.1). */
const USER_DID_NOT_LOG_IN = new Set([
  "access_denied",
  "login_required",
  "consent_required",
  "interaction_required",
  "account_selection_required",
]);
/** Errors the upstream says are its own passing trouble. */
const UPSTREAM_TROUBLE = new Set(["temporarily_unavailable", "server_error"]);
/** openid-client's codes for an answer that is not OAuth at all (an HTML error page, a 502 from a proxy). */
const NOT_AN_ANSWER = new Set(["OAUTH_RESPONSE_IS_NOT_CONFORM", "OAUTH_RESPONSE_IS_NOT_JSON"]);

const unavailable = (id: string, cause: unknown) =>
  new EidError("unavailable", id, "the eID provider is not reachable, try again later", { cause });

/**
 * The EidError for what openid-client threw while finishing a login. Upstream texts stay in `cause`
 * (logged), never in the description: they are the upstream's words, not ours to show. Anything that
 * is no upstream answer nor network failure (a bug here) is rethrown as is, to become a logged 500.
 */
export function classifyEidError(id: string, error: unknown): unknown {
  if (error instanceof EidError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    if (USER_DID_NOT_LOG_IN.has(error.error))
      return new EidError("access_denied", id, `the eID login was not completed (${error.error})`, { cause: error });
    if (UPSTREAM_TROUBLE.has(error.error)) return unavailable(id, error);
    return new EidError("invalid_response", id, `the eID provider refused the login request (${error.error})`, { cause: error });
  }
  if (error instanceof client.ResponseBodyError) {
    if (error.status >= 500 || UPSTREAM_TROUBLE.has(error.error)) return unavailable(id, error);
    return new EidError("invalid_response", id, "the eID provider refused to complete the login", { cause: error });
  }
  // Userinfo refusing the access token it was just given: the upstream's answer cannot be used.
  if (error instanceof client.WWWAuthenticateChallengeError) {
    if (error.status >= 500) return unavailable(id, error);
    return new EidError("invalid_response", id, "the eID provider refused to complete the login", { cause: error });
  }
  if (error instanceof client.ClientError) {
    if (NOT_AN_ANSWER.has(error.code ?? "")) return unavailable(id, error);
    return new EidError("invalid_response", id, "the eID provider's answer failed validation", { cause: error });
  }
  // fetch's own failures: no connection, reset, DNS, or the request timing out.
  if (isNetworkFailure(error)) return unavailable(id, error);
  return error;
}

function isNetworkFailure(error: unknown): boolean {
  if (error instanceof TypeError) return (error as { code?: unknown }).code === undefined;
  return error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
}
