import type { ServerResponse } from "node:http";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { BrowserPages, ResponsePage } from "../../views/browser-pages.ts";
import { appendQuery } from "../../http-kit/append-query.ts";
import { seeOther } from "../../http-kit/see-other.ts";

/**
 * Sends an authorization response — a code or an error — to the client's redirect_uri in the
 * requested response mode (OAuth 2.0 Multiple Response Types, Form Post Response Mode). Every response
 * carries `iss` (RFC 9207) and `state` exactly as sent. A login that ran in an iframe finishes in the
 * top window (`page.frameAncestors` is set for iframe_authz); one that came back from an upstream eID
 * provider leaves that provider's redirect chain through a page (`page.leaveRedirectChain`).
 */
export function writeAuthorizationResponse(
  res: ServerResponse,
  pages: BrowserPages,
  request: Pick<AuthorizationRequest, "redirectUri" | "responseMode" | "state">,
  params: Record<string, string | undefined>,
  page: ResponsePage,
  headers: Record<string, string | string[]> = {},
): void {
  // Loops rather than Object.entries: with an SSO session this is half of every code flow.
  const fields: [string, string][] = [];
  for (const name in params) if (params[name] !== undefined) fields.push([name, params[name]]);
  if (request.state !== undefined) fields.push(["state", request.state]);
  for (const name in headers) res.appendHeader(name, headers[name]!); // keeps cookies set earlier

  if (request.responseMode === "form_post") {
    return pages.formPost(res, request.redirectUri, fields, page);
  }
  // The registered URI byte for byte (a URL object would normalise it); registered URIs have no fragment.
  const location =
    request.responseMode === "fragment"
      ? `${request.redirectUri}#${new URLSearchParams(fields).toString()}`
      : appendQuery(request.redirectUri, fields);
  if (page.frameAncestors || page.leaveRedirectChain) return pages.topRedirect(res, location, page);
  seeOther(res, location);
}
