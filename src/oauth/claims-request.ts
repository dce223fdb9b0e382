import { invalidRequest } from "../errors/oauth-error.ts";

/**
 * What an authorize request's `claims` parameter (OIDC Core §5.5) asks, as the request keeps it: the
 * claim names wanted in userinfo and in the ID token, and the `acr` request. Plain data: it is stored with
 * the interaction, the code and the refresh token. Which of the names are released is decided elsewhere
 * (requestedClaimsFor): a claims request never releases more than the client's allowed scopes do.
 */
export interface RequestedClaims {
  userinfo: string[];
  idToken: string[];
  acr?: AcrClaimRequest;
}

/** `"acr": { "essential": …, "value" | "values": … }` in either member: the acr values the login should (essential: must) reach. */
export interface AcrClaimRequest {
  essential: boolean;
  /** Empty: any acr (then the request asks nothing of the login). */
  values: string[];
}

/** At most this many claims per member, values per acr request, and characters per name: no real request needs more. */
const MAX_CLAIMS = 64;
const MAX_ACR_VALUES = 16;
const MAX_NAME_LENGTH = 128;
const MEMBERS = { userinfo: "userinfo", id_token: "idToken" } as const;

/**
 * Reads the `claims` parameter: a JSON object whose `userinfo` and `id_token` members (each optional) are
 * objects of claim name → null or an individual request `{ essential?, value?, values? }`. Anything else
 * in the top object or in an individual request is ignored, as §5.5 says; malformed JSON or a member of
 * the wrong shape is invalid_request (thrown as an OAuthError).
 */
export function parseClaimsParameter(text: string): RequestedClaims {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest("claims is not valid JSON");
  }
  if (!isObject(parsed)) throw invalidRequest("claims must be a JSON object");
  const out: RequestedClaims = { userinfo: [], idToken: [] };
  for (const [member, key] of Object.entries(MEMBERS)) {
    const requests = parsed[member];
    if (requests === undefined || requests === null) continue;
    if (!isObject(requests)) throw invalidRequest(`claims.${member} must be an object`);
    const names = Object.keys(requests);
    if (names.length > MAX_CLAIMS) throw invalidRequest(`claims.${member} asks for more than ${MAX_CLAIMS} claims`);
    for (const name of names) {
      if (name === "" || name.length > MAX_NAME_LENGTH)
        throw invalidRequest(`claims.${member} has a claim name of 0 or over ${MAX_NAME_LENGTH} characters`);
      const request = requests[name];
      if (request !== null && !isObject(request)) throw invalidRequest(`claims.${member}.${name} must be null or an object`);
      if (request !== null && request.essential !== undefined && typeof request.essential !== "boolean")
        throw invalidRequest(`claims.${member}.${name}.essential must be true or false`);
      if (request !== null && request.values !== undefined && !Array.isArray(request.values))
        throw invalidRequest(`claims.${member}.${name}.values must be an array`);
      if (name === "acr") out.acr = mergeAcr(out.acr, acrRequest(member, request));
      out[key].push(name);
    }
  }
  return out;
}

/** The acr request of one member: its value(s) must be strings, as acr values are. */
function acrRequest(member: string, request: Record<string, unknown> | null): AcrClaimRequest {
  if (request === null) return { essential: false, values: [] };
  const values = request.values !== undefined ? (request.values as unknown[]) : request.value !== undefined ? [request.value] : [];
  if (values.length > MAX_ACR_VALUES) throw invalidRequest(`claims.${member}.acr has more than ${MAX_ACR_VALUES} values`);
  if (values.some((value) => typeof value !== "string" || value === ""))
    throw invalidRequest(`claims.${member}.acr value and values must be non-empty strings`);
  return { essential: request.essential === true, values: values as string[] };
}

/**
 * Both members asking for acr: essential when either is, and the values of the essential one (both: the
 * values both accept), so that asking twice never weakens what was asked once.
 */
function mergeAcr(before: AcrClaimRequest | undefined, next: AcrClaimRequest): AcrClaimRequest {
  if (before === undefined) return next;
  if (before.essential !== next.essential) return before.essential ? before : next;
  if (before.values.length === 0) return next;
  if (next.values.length === 0) return before;
  const values = before.values.filter((value) => next.values.includes(value));
  if (values.length === 0) throw invalidRequest("claims asks for acr in both members with no value in common");
  return { essential: before.essential, values };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
