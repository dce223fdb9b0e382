import type { Client } from "../../oauth/client-registry.ts";
import { declinedRequestObjectAnswer } from "./declined-request-object.ts";
import { invalidRequest, invalidScope, OAuthError, oauthError } from "../../errors/oauth-error.ts";
import { RESPONSE_MODES, type AuthorizationRequest, type ResponseMode } from "../../oauth/authorization-request.ts";
import { parseScope } from "../../scopes/scope.ts";
import { parseClaimsParameter } from "../../oauth/claims-request.ts";
import { JKT_SHAPE } from "../../oauth/dpop/jwk-thumbprint.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";

/** Authorize parameters as sent: the first value of each, and which were repeated (an error, but only once the client is known). */
export interface RawAuthorizeParams {
  values: Map<string, string>;
  repeated: Set<string>;
}

export function readAuthorizeParams(search: URLSearchParams, maxLength: number): RawAuthorizeParams {
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of search) {
    if (value === "") continue; // RFC 6749 §3.1: sent without a value = omitted
    if (values.has(name)) repeated.add(name);
    else values.set(name, value.length > maxLength ? "\u0000too-long" : value);
  }
  return { values, repeated };
}

/** The state to return with an error: as sent, or none when it was over the length limit (it cannot be returned as sent). */
export function stateToReturn(raw: RawAuthorizeParams | undefined): string | undefined {
  const state = raw?.values.get("state") ?? (raw && declinedRequestObjectAnswer(raw.values).state);
  return state === TOO_LONG ? undefined : state;
}

/** A client or redirect_uri we cannot trust: the error is shown as a page, never sent to the redirect_uri. */
const untrusted = (description: string) => oauthError("invalid_request", description);
/** The same error, to be sent to the client's redirect_uri (once client and redirect_uri are trusted). */
export const redirectable = (error: OAuthError) =>
  oauthError(error.error, error.description, { status: error.status, allowRedirect: true });

/**
 * The spec's prompt values, and OIDC's `consent`: every client is registered by the operators, so its
 * consent is given, and the value asks nothing more (RPs send it with offline_access, OIDC Core §11).
 */
const PROMPTS = new Set(["none", "login", "force_login", "consent"]);
const KEPT_LENGTHS: ReadonlyArray<[string, number]> = [
  ["nonce", 512],
  ["login_hint", 512],
  ["acr_values", 1024],
  ["login_type", 64],
  ["fa", 256],
  ["claims", 4096],
];
const PKCE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const TOO_LONG = "\u0000too-long";

/**
 * Step 1 (before anything can be redirected): the client exists and may use the code flow, and
 * redirect_uri is byte-for-byte one of its registered URIs. Failures here are untrusted: an error page.
 */
export function checkClientAndRedirect(
  policy: Pick<PolicySnapshot, "clients">,
  raw: RawAuthorizeParams,
): { client: Client; redirectUri: string; responseMode: ResponseMode } {
  if (raw.repeated.has("client_id")) throw untrusted("client_id is repeated");
  if (raw.repeated.has("redirect_uri")) throw untrusted("redirect_uri is repeated");
  const clientId = raw.values.get("client_id");
  if (clientId === undefined) throw untrusted("client_id is required");
  const client = policy.clients.get(clientId);
  if (!client?.grantTypes.has("authorization_code"))
    throw untrusted("unknown client, or a client that may not use the authorization code flow");
  const redirectUri = raw.values.get("redirect_uri");
  if (redirectUri === undefined) throw untrusted("redirect_uri is required");
  if (!client.redirectUris.has(redirectUri)) throw untrusted("redirect_uri is not registered for this client");
  // The response mode decides how even an error is returned (a declined request object's too); an unknown one falls back to query.
  const mode = raw.values.get("response_mode") ?? declinedRequestObjectAnswer(raw.values).responseMode;
  const responseMode = mode !== undefined && (RESPONSE_MODES as readonly string[]).includes(mode) ? (mode as ResponseMode) : "query";
  return { client, redirectUri, responseMode };
}

/**
 * Step 2: every other parameter, with errors that go back to the client's redirect_uri. Unknown
 * parameters are ignored (OIDC Core §3.1.2.1).
 */
export function checkAuthorizeRequest(client: Client, raw: RawAuthorizeParams, base: RequestBase): AuthorizationRequest {
  try {
    return buildRequest(client, raw, base);
  } catch (err) {
    throw err instanceof OAuthError ? redirectable(err) : err;
  }
}

/** What the endpoint already knows: the trusted redirect, the response mode, and the variant served. */
export interface RequestBase {
  redirectUri: string;
  responseMode: ResponseMode;
  framed: boolean;
  /** /Account/Login adds prompt=login. */
  forcePrompt?: string;
}

function buildRequest(client: Client, raw: RawAuthorizeParams, base: RequestBase): AuthorizationRequest {
  const get = (name: string) => raw.values.get(name);
  // Parameters are single-valued (OAuth 2.0 §3.1); a repeated one, or one over the length limit, is refused.
  const repeated = [...raw.repeated][0];
  if (repeated !== undefined) throw invalidRequest(`parameter '${repeated.slice(0, 64)}' is repeated`);
  for (const [name, value] of raw.values) if (value === TOO_LONG) throw invalidRequest(`parameter '${name.slice(0, 64)}' is too long`);

  // OIDC Core §6: request objects are not supported, and say so rather than drop what they ask for.
  if (get("request") !== undefined) throw oauthError("request_not_supported", "request objects are not supported");
  if (get("request_uri") !== undefined) throw oauthError("request_uri_not_supported", "request_uri is not supported");
  if (get("registration") !== undefined) throw oauthError("registration_not_supported", "the registration parameter is not supported");

  // The response mode must be one we serve.
  const mode = get("response_mode");
  if (mode !== undefined && mode !== base.responseMode) throw invalidRequest("response_mode must be query, fragment or form_post");

  // Only the authorization code flow (DESIGN: code only; implicit and hybrid are not supported).
  const responseType = get("response_type");
  if (responseType === undefined) throw invalidRequest("response_type is required");
  if (responseType !== "code") throw oauthError("unsupported_response_type", "only response_type=code is supported");

  // scope: includes openid, and every scope is allowed for this client.
  const scopes = parseScope(get("scope"));
  if (!scopes.includes("openid")) throw invalidScope("scope must include openid");
  const notAllowed = scopes.find((s) => !client.allowedScopes.has(s));
  if (notAllowed !== undefined) throw invalidScope(`scope '${notAllowed.slice(0, 64)}' is not allowed for this client`);

  const pkce = checkPkce(client, get("code_challenge"), get("code_challenge_method"));
  const prompt = checkPrompt(get("prompt"), base.forcePrompt);
  const maxAge = checkMaxAge(get("max_age"));
  // What an interaction keeps for up to its lifetime is bounded tighter than a parameter in general.
  for (const [name, limit] of KEPT_LENGTHS)
    if ((get(name)?.length ?? 0) > limit) throw invalidRequest(`${name} is longer than ${limit} characters`);
  const acrValues = get("acr_values")?.split(" ").filter(Boolean);
  if ((acrValues?.length ?? 0) > 16) throw invalidRequest("acr_values has more than 16 values");
  // What acr_values, login_type, fa and signature ask of the login is the login plan's (login-plan-step.ts).
  const lang = get("lang") ?? get("ui_locales");
  // What the claims parameter asks (OIDC Core §5.5): which claims it adds is decided where they are released.
  const claimsParameter = get("claims");
  const claims = claimsParameter === undefined ? undefined : parseClaimsParameter(claimsParameter);
  const dpopJkt = get("dpop_jkt");
  // RFC 9449 §10: a JWK SHA-256 thumbprint, base64url.
  if (dpopJkt !== undefined && !JKT_SHAPE.test(dpopJkt)) throw invalidRequest("dpop_jkt must be a base64url SHA-256 JWK thumbprint");

  return {
    clientId: client.id,
    redirectUri: base.redirectUri,
    responseMode: base.responseMode,
    scopes,
    state: get("state"),
    nonce: get("nonce"),
    ...pkce,
    prompt,
    maxAge,
    loginHint: get("login_hint"),
    lang,
    acrValues,
    ...(claims !== undefined && { claims }),
    framed: base.framed,
    ...(dpopJkt !== undefined && { dpopJkt }),
  };
}

/** PKCE (RFC 7636): S256, or plain only for clients that allow it; required for public clients. */
function checkPkce(
  client: Client,
  challenge: string | undefined,
  method: string | undefined,
): Pick<AuthorizationRequest, "codeChallenge" | "codeChallengeMethod"> {
  if (challenge === undefined) {
    if (method !== undefined) throw invalidRequest("code_challenge_method without code_challenge");
    if (client.requirePkce) throw invalidRequest("this client must use PKCE (code_challenge with S256)");
    return {};
  }
  const chosen = method ?? "plain"; // RFC 7636 §4.3 default
  if (chosen !== "S256" && chosen !== "plain") throw invalidRequest("code_challenge_method must be S256 or plain");
  if (chosen === "plain" && !client.allowPlainPkce) throw invalidRequest("this client must use code_challenge_method=S256");
  if (!PKCE_CHALLENGE.test(challenge)) throw invalidRequest("code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]");
  return { codeChallenge: challenge, codeChallengeMethod: chosen };
}

function checkPrompt(value: string | undefined, forced: string | undefined): string[] {
  const prompt = new Set((value ?? "").split(" ").filter(Boolean));
  for (const p of prompt) if (!PROMPTS.has(p)) throw invalidRequest(`prompt '${p.slice(0, 32)}' is not supported`);
  if (forced) prompt.add(forced);
  if (prompt.has("none") && prompt.size > 1) throw invalidRequest("prompt=none cannot be combined with other values");
  return [...prompt];
}

function checkMaxAge(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value)) throw invalidRequest("max_age must be a non-negative integer");
  return Number(value);
}
