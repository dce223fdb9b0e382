import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { grantHandlers } from "../grants/grant-handlers.ts";
import { OFFLINE_ACCESS } from "../../scopes/scope-registry.ts";
import { paths } from "../../http-kit/paths.ts";
import { CLIENT_ASSERTION_ALGORITHMS } from "../../crypto/client-jwk.ts";
import { RESPONSE_MODES } from "../../oauth/authorization-request.ts";
import { DPOP_ALGORITHMS } from "../../crypto/dpop-algorithms.ts";
import { acrValuesSupported, loginTypesSupported } from "../../login-policy/acr-values-supported.ts";

/** The ID token's protocol claims (src/tokens/id-token.ts): every login's, nonce and at_hash where the request has them. */
const PROTOCOL_CLAIMS = ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "at_hash"];

/**
 * Every claim the provider can supply (OIDC Discovery §3 claims_supported): the ID token's protocol
 * claims, the userinfo claims scopes.yaml releases, the login claims login.yaml's acr values add and
 * the installed extensions' own (custom_scan: their manifests' idTokenClaims).
 */
export function claimsSupported({ scopes, login }: Pick<PolicySnapshot, "scopes" | "login">, extensionClaims: readonly string[]): string[] {
  const loginClaims = [...login.acrValues.values()].flatMap((declared) => declared.claims);
  return [...new Set([...PROTOCOL_CLAIMS, ...scopes.allClaims(), ...loginClaims, ...extensionClaims])];
}

/** What discovery says that the policy snapshot does not hold: fixed for a process's life. */
export interface DiscoveryFacts {
  /** The installed extensions' ID token claims. */
  extensionClaims: readonly string[];
  /** The algorithms the key ring has a current key of, RS256 first. */
  signingAlgs: readonly string[];
  /** provider.yaml require_pushed_authorization_requests. */
  requirePushed: boolean;
}

/**
 * OpenID Provider Metadata. Only what is implemented is advertised: grant types come from the grant
 * handler table, scopes and claims from scopes.yaml, endpoints from the routes that are mounted, signing
 * algorithms from the key ring (`signingAlgs`: those it has a current key of, RS256 first).
 */
export function discoveryDocument(issuer: string, policy: PolicySnapshot, facts: DiscoveryFacts): Record<string, unknown> {
  const { scopes, clients, login } = policy;
  const { extensionClaims, signingAlgs, requirePushed } = facts;
  const clientAuth = ["client_secret_post", "client_secret_basic", "private_key_jwt"];
  // The asymmetric algorithms a client assertion may use (src/crypto/client-jwk.ts); never none or HS*.
  const assertionAlgs = [...CLIENT_ASSERTION_ALGORITHMS];
  return {
    issuer,
    jwks_uri: issuer + paths.jwks,
    authorization_endpoint: issuer + paths.authorize,
    token_endpoint: issuer + paths.token,
    // RFC 9126 §5: pushed requests, with the same client authentication as the token endpoint.
    pushed_authorization_request_endpoint: issuer + paths.pushedAuthorizationRequest,
    require_pushed_authorization_requests: requirePushed,
    introspection_endpoint: issuer + paths.introspection,
    revocation_endpoint: issuer + paths.revocation,
    userinfo_endpoint: issuer + paths.userinfo,
    end_session_endpoint: issuer + paths.endSession,
    scopes_supported: [...scopes.identityScopeNames(), OFFLINE_ACCESS, ...scopes.apiScopeNames()],
    claims_supported: claimsSupported(policy, extensionClaims),
    grant_types_supported: Object.keys(grantHandlers),
    // Public clients authenticate with client_id alone (and prove themselves with PKCE).
    token_endpoint_auth_methods_supported: [...clientAuth, "none"],
    token_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    introspection_endpoint_auth_methods_supported: clientAuth,
    introspection_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    revocation_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    // The code flow only (DESIGN "response_type"), in every response mode, with RFC 9207 iss.
    response_types_supported: ["code"],
    response_modes_supported: RESPONSE_MODES,
    prompt_values_supported: ["none", "login", "force_login", "consent"],
    // The acr claim's values and the spec's acr_values this deployment serves (login-policy/acr-values-supported.ts).
    acr_values_supported: acrValuesSupported(login),
    login_types_supported: loginTypesSupported(login),
    // RFC 7636 §4.2: S256 for every client; plain only where a client opts in, so it is not
    // advertised to a deployment that refuses it everywhere.
    code_challenge_methods_supported: [...clients.all()].some((c) => c.allowPlainPkce) ? ["S256", "plain"] : ["S256"],
    authorization_response_iss_parameter_supported: true,
    ui_locales_supported: ["zh-Hans", "zh-Hant", "en", "ja", "vi"],
    display_values_supported: ["page"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: signingAlgs,
    // RFC 9449 §5.1: the proof algorithms the token endpoint (and userinfo) take.
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    // OIDC Core §5.5: userinfo and id_token members, released within each client's allowed scopes; an essential acr is enforced.
    claims_parameter_supported: true,
    request_parameter_supported: false,
    // Request objects by reference are not fetched; a pushed request's request_uri works regardless (RFC 9126 §5).
    request_uri_parameter_supported: false,
    // Single sign-out (sessions/sign-out.ts): both channels, each with sid (and iss) when the client asks.
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  };
}
