import type { Client, ClientRegistry } from "./client-registry.ts";
import { authenticateParty, type AuthServicesScope, type ClientAuthRequest } from "./authenticate-party.ts";

export type { ClientAuthRequest } from "./authenticate-party.ts";

/** What client authentication reads of the request's scope ({ infra, policy }): a Scope is one. */
export interface ClientAuthScope extends AuthServicesScope {
  readonly policy: { readonly clients: ClientRegistry };
}

/**
 * The one client authentication of every endpoint a client calls with its credentials (token,
 * revocation, pushed authorization requests): `await authenticateClient(scope, { authorization, params })`.
 * client_secret_basic, client_secret_post, private_key_jwt (RFC 7523) or none, each only for a client
 * whose token_endpoint_auth_method allows it; public clients present no secret (they prove themselves
 * with PKCE). Every failure is the same 401 invalid_client, audited with its reason; a success is
 * audited with the secret (fingerprint) or key (kid) that proved it (src/oauth/authenticate-party.ts).
 */
export function authenticateClient(scope: ClientAuthScope, request: ClientAuthRequest): Promise<Client> {
  return authenticateParty(scope, request, { name: "client", find: (id) => scope.policy.clients.get(id), audited: true });
}
