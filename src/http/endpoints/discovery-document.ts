import type { Provider } from "../../provider.ts";
import { grantHandlers } from "../../oauth/grants/grant-handlers.ts";
import { OFFLINE_ACCESS } from "../../oauth/scope-registry.ts";
import { paths } from "../paths.ts";

/**
 * OpenID Provider Metadata. Only what is implemented is advertised: grant types come from the grant
 * handler table, scopes and claims from scopes.yaml, endpoints from the routes that are mounted.
 */
export function discoveryDocument(provider: Provider): Record<string, unknown> {
  const { issuer, scopes } = provider;
  const clientAuth = ["client_secret_post", "client_secret_basic"];
  return {
    issuer,
    jwks_uri: issuer + paths.jwks,
    token_endpoint: issuer + paths.token,
    introspection_endpoint: issuer + paths.introspection,
    revocation_endpoint: issuer + paths.revocation,
    scopes_supported: [...scopes.identityScopeNames(), OFFLINE_ACCESS, ...scopes.apiScopeNames()],
    claims_supported: [...new Set(["sub", "iss", "aud", "exp", "iat", "auth_time", "amr", ...scopes.allClaims()])],
    grant_types_supported: Object.keys(grantHandlers),
    token_endpoint_auth_methods_supported: clientAuth,
    introspection_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_methods_supported: clientAuth,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["RS256"],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  };
}
