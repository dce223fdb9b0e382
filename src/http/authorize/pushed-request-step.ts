import { oauthError } from "../../errors/oauth-error.ts";
import { isPushedRequestUri, type PushedRequests } from "../../oauth/pushed-requests.ts";
import { SILENT_LOGIN_PARAMETER } from "../../trusted-app/silent-login-token.ts";
import type { RawAuthorizeParams } from "./authorize-params.ts";

/**
 * What the browser itself adds to a request and keeps adding to a pushed one: the trusted app's
 * silent-login token authenticates the user, as the session cookie does, and asks nothing of the login.
 */
const USER_AGENT_PARAMETERS = [SILENT_LOGIN_PARAMETER];

/** The request an authorize request carries: its own parameters, or those a client pushed (`pushed`). */
export type CarriedRequest = {
  raw: RawAuthorizeParams;
  pushed: boolean;
};

/**
 * RFC 9126 §4: an authorize request with a request_uri of ours runs the request its client pushed. The
 * pushed parameters replace the query, which adds nothing but the browser's own parameters: a browser
 * cannot add or change login_type, fa, acr_values or prompt. The parameters go through the same parsing as
 * a query, so every authorize parameter works pushed. The request_uri is taken (single use, every node);
 * an unknown, used or expired one, or one of another client, is invalid_request_uri, shown as a page: the
 * redirect_uri is not known until the pushed request is. Any other request_uri is a request object by
 * reference, left to authorize's refusal. Asynchronous only for a pushed request.
 */
export function carriedRequest(pushedRequests: PushedRequests, query: RawAuthorizeParams): CarriedRequest | Promise<CarriedRequest> {
  const requestUri = query.values.get("request_uri");
  if (requestUri === undefined || !isPushedRequestUri(requestUri)) return { raw: query, pushed: false };
  if (query.repeated.has("request_uri") || query.repeated.has("client_id"))
    throw oauthError("invalid_request", "client_id and request_uri must be sent once");
  const clientId = query.values.get("client_id");
  if (clientId === undefined) throw oauthError("invalid_request", "client_id is required with request_uri");
  return pushedRequests.take(requestUri).then((pushed) => {
    if (pushed === undefined || pushed.clientId !== clientId)
      throw oauthError("invalid_request_uri", "request_uri is unknown, used, expired or not this client's");
    const values = new Map(pushed.params);
    for (const name of USER_AGENT_PARAMETERS) {
      values.delete(name);
      const value = query.values.get(name);
      if (value !== undefined) values.set(name, value);
    }
    return { raw: { values, repeated: new Set() }, pushed: true };
  });
}
