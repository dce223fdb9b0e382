import type { ApiResource, ScopeRegistry } from "../scopes/scope-registry.ts";
import {
  authenticateParty,
  type AuthMethod,
  type AuthServicesScope,
  type ClientAuthRequest,
  type CredentialHolder,
} from "./authenticate-party.ts";

/** What an API resource's authentication reads of the request's scope: a Scope is one. */
export interface ApiResourceAuthScope extends AuthServicesScope {
  readonly policy: { readonly scopes: ScopeRegistry };
}

const BY_KEY: ReadonlySet<AuthMethod> = new Set(["private_key_jwt"]);
const BY_SECRET: ReadonlySet<AuthMethod> = new Set(["client_secret_basic", "client_secret_post"]);

/**
 * An API resource (the introspection caller) proves itself with its name and ApiSecret, or, when
 * scopes.yaml gives it keys (jwks, jwks_uri), with a private_key_jwt assertion under the same rules as a
 * client's. A resource with neither cannot introspect. Every failure is 401 invalid_client; a resource's
 * attempts are not in the audit trail (which speaks of clients).
 */
export async function authenticateApiResource(scope: ApiResourceAuthScope, request: ClientAuthRequest): Promise<ApiResource> {
  const holder = await authenticateParty<CredentialHolder & { resource: ApiResource }>(scope, request, {
    name: "api_resource",
    find: (name) => {
      const resource = scope.policy.scopes.resource(name);
      if (resource === undefined) return undefined;
      return {
        id: resource.name,
        authMethods: resource.keys ? BY_KEY : BY_SECRET,
        secrets: resource.secrets,
        keys: resource.keys,
        resource,
      };
    },
    audited: false,
  });
  return holder.resource;
}
