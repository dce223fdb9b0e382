/**
 * What `profile: fapi2` sets (FAPI 2.0 Security Profile, docs/fapi2.md): the keys of clients.yaml a
 * FAPI 2.0 client would otherwise have to spell out, with the values the profile requires. Applied to
 * the parsed file before the schema fills its own defaults, so a key the operator left out gets the
 * profile's value and a key the operator wrote keeps theirs; src/config/fapi2-rules.ts then refuses a
 * written value the profile forbids. The Client built from the entry (src/oauth/client-registry.ts)
 * needs no profile check for these: they are ordinary settings by then.
 */
export const FAPI2_SETTINGS = {
  // §5.3.2.1: only confidential clients.
  type: "confidential",
  // §5.3.2.1: private_key_jwt or mTLS; this provider offers no mTLS.
  token_endpoint_auth_method: "private_key_jwt",
  // §5.3.2.2: pushed authorization requests only.
  require_pushed_authorization_requests: true,
  // §5.3.2.2: PKCE with S256.
  require_pkce: true,
  allow_plain_pkce: false,
  // §5.3.2.1: sender-constrained access tokens (DPoP; mTLS is not offered).
  require_dpop: true,
  // §5.4: PS256, ES256 or EdDSA; PS256 fits the RSA keys most deployments already have.
  id_token_signed_response_alg: "PS256",
  access_token_signed_response_alg: "PS256",
} as const;

/** §5.3.2.2: authorization codes live at most 60 seconds; the profile's default is the maximum. */
export const FAPI2_MAX_CODE_LIFETIME_S = 60;
export const FAPI2_CODE_LIFETIME = `${FAPI2_MAX_CODE_LIFETIME_S}s`;
/** §5.3.2.2: a pushed request's request_uri expires within 600 seconds (provider.yaml sets it for every client). */
export const FAPI2_MAX_REQUEST_URI_LIFETIME_S = 600;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Fills the profile's settings into every `profile: fapi2` client of a parsed clients.yaml that leaves
 * them out. Runs on unvalidated input: anything that is not the expected shape is left to the schema.
 */
export function applyClientProfiles(file: unknown): void {
  if (!isObject(file) || !Array.isArray(file.clients)) return;
  for (const client of file.clients) {
    if (!isObject(client) || client.profile !== "fapi2") continue;
    for (const [key, value] of Object.entries(FAPI2_SETTINGS)) if (!Object.hasOwn(client, key)) client[key] = value;
    if (client.lifetimes === undefined) client.lifetimes = {};
    if (isObject(client.lifetimes) && !Object.hasOwn(client.lifetimes, "authorization_code"))
      client.lifetimes.authorization_code = FAPI2_CODE_LIFETIME;
  }
}
