import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import { classifyEidError } from "../../src/eid/classify-eid-error.ts";
import { EidError } from "../../src/eid/eid-error.ts";

const callbackError = (error: string) =>
  new client.AuthorizationResponseError("authorization response from the server is an error", {
    cause: new URLSearchParams({ error, error_description: "upstream words" }),
  });
const tokenError = (error: string, status: number) =>
  new client.ResponseBodyError("server responded with an error in the response body", {
    cause: { error, error_description: "upstream words" },
    response: new Response(null, { status }),
  });
const challenge = (status: number) =>
  new client.WWWAuthenticateChallengeError("server responded with a challenge", { cause: [], response: new Response(null, { status }) });
const clientError = (code: string) => Object.assign(new client.ClientError("invalid response encountered"), { code });
const fetchFailed = () =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });

/** The failure, OAuth error and status an error is answered with, or "rethrown" when it is not the upstream's doing. */
function classified(error: unknown) {
  const result = classifyEidError("national", error);
  if (!(result instanceof EidError)) return result === error ? "rethrown" : "replaced";
  expect(result.description).not.toContain("upstream words");
  expect(result.allowRedirect).toBe(true);
  return `${result.failure} ${result.error} ${result.status}`;
}

describe("classifyEidError", () => {
  it.each([
    ["error=access_denied at the callback", "access_denied access_denied 403", callbackError("access_denied")],
    ["error=login_required at the callback", "access_denied access_denied 403", callbackError("login_required")],
    ["error=temporarily_unavailable at the callback", "unavailable temporarily_unavailable 503", callbackError("temporarily_unavailable")],
    ["error=invalid_scope at the callback", "invalid_response server_error 502", callbackError("invalid_scope")],
    ["invalid_grant from the token endpoint", "invalid_response server_error 502", tokenError("invalid_grant", 400)],
    ["a 503 error body from the token endpoint", "unavailable temporarily_unavailable 503", tokenError("server_error", 503)],
    ["a 401 challenge from userinfo", "invalid_response server_error 502", challenge(401)],
    ["an ID token that fails validation", "invalid_response server_error 502", clientError("OAUTH_JWT_CLAIM_COMPARISON_FAILED")],
    ["an HTML error page instead of JSON", "unavailable temporarily_unavailable 503", clientError("OAUTH_RESPONSE_IS_NOT_JSON")],
    ["a refused connection", "unavailable temporarily_unavailable 503", fetchFailed()],
    [
      "a request that timed out",
      "unavailable temporarily_unavailable 503",
      new DOMException("The operation was aborted due to timeout", "TimeoutError"),
    ],
  ])("answers %s as %s", (_what, expected, error) => {
    expect(classified(error)).toBe(expected);
  });

  it("rethrows what is no upstream answer nor network failure (a bug here: a logged 500)", () => {
    expect(classified(new RangeError("oops"))).toBe("rethrown");
    expect(classified(Object.assign(new TypeError('"currentUrl" must be an instance of URL'), { code: "ERR_INVALID_ARG_TYPE" }))).toBe(
      "rethrown",
    );
  });
});
