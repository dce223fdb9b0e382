import type { AuthorizationRequest } from "../oauth/authorization-request.ts";
import { parseAcmeAuthUri } from "./acmeauth-uri.ts";
import { SILENT_LOGIN_PARAMETER } from "./silent-login-token.ts";

/**
 * The app-side entry of the spec, `acmeauth://sso/oidc?<authorize params>`: a page (the login page on
 * a phone) hands an authorize request to the trusted app, which performs it at the provider it is
 * enrolled with, adding its silent-login token (the embedded web view's mechanism), and opens the
 * redirect the provider answers. The URI names no provider: the app only ever sends its token to its
 * own issuer, so a link from anywhere cannot make it sign in somewhere else.
 */

/** The spec's authorize path (src/http/paths.ts has it too; not imported: src/http imports this folder). */
const AUTHORIZE_PATH = "/connect/authorize";

/** The acmeauth://sso/oidc link for these authorize parameters (a token already in them is dropped). */
export function appEntryUrl(params: URLSearchParams | Record<string, string>): string {
  const query = new URLSearchParams(params);
  query.delete(SILENT_LOGIN_PARAMETER);
  return `acmeauth://sso/oidc?${query}`;
}

/** An app entry as the app reads it: the client to make the silent-login token for, and the request. */
export interface SsoEntry {
  clientId: string;
  params: URLSearchParams;
  /** What the request's acr_values ask the app to measure (app_gps / app_faceid). */
  wants: { gps: boolean; faceid: boolean };
}

/**
 * Reads an acmeauth://sso/oidc URI — or, scanned from a QR code (the custom QR-code login's), an
 * authorize link of the app's own provider (`issuer`); undefined when it is neither, or names no single
 * client_id. A link to any other provider is not an entry: the app sends its token only to its own.
 */
export function parseSsoEntry(uri: string, issuer?: string): SsoEntry | undefined {
  const parsed = parseAcmeAuthUri(uri);
  const query = parsed?.kind === "sso" ? parsed.params : issuer !== undefined ? ownAuthorizeQuery(uri, issuer) : undefined;
  if (query === undefined) return undefined;
  const params = new URLSearchParams(query);
  params.delete(SILENT_LOGIN_PARAMETER);
  const clientIds = params.getAll("client_id");
  if (clientIds.length !== 1 || !clientIds[0]) return undefined;
  const acr = (params.get("acr_values") ?? "").split(" ");
  return { clientId: clientIds[0], params, wants: { gps: acr.includes("app_gps"), faceid: acr.includes("app_faceid") } };
}

/** The provider's authorize request for an entry, carrying the app's silent-login token. */
export function ssoAuthorizeUrl(server: string, entry: SsoEntry, token: string): string {
  const query = new URLSearchParams(entry.params);
  query.set(SILENT_LOGIN_PARAMETER, token);
  return `${server.replace(/\/+$/, "")}${AUTHORIZE_PATH}?${query}`;
}

/**
 * The authorize parameters of a validated request, as the app entry repeats them (the login page's
 * link): what the request asked, in the spec's parameter names. Not the silent-login token, and not
 * `prompt`: the app's request is a fresh one that a device token answers.
 */
export function authorizeParamsOf(request: AuthorizationRequest): Record<string, string> {
  const params: Record<string, string | undefined> = {
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: "code",
    response_mode: request.responseMode === "query" ? undefined : request.responseMode,
    scope: request.scopes.join(" "),
    state: request.state,
    nonce: request.nonce,
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallenge ? request.codeChallengeMethod : undefined,
    max_age: request.maxAge === undefined ? undefined : String(request.maxAge),
    login_hint: request.loginHint,
    lang: request.lang,
    acr_values: request.acrValues?.length ? request.acrValues.join(" ") : undefined,
    login_type: request.loginType,
  };
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The query of an authorize link of this issuer (`<issuer>/connect/authorize?…`), else undefined. */
function ownAuthorizeQuery(uri: string, issuer: string): string | undefined {
  const prefix = `${issuer.replace(/\/+$/, "")}${AUTHORIZE_PATH}?`;
  return uri.startsWith(prefix) ? uri.slice(prefix.length) : undefined;
}
