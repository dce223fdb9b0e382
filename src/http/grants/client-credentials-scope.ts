import type { Client } from "../../oauth/client-registry.ts";
import { OFFLINE_ACCESS, type ScopeRegistry } from "../../scopes/scope-registry.ts";
import { invalidScope } from "../../errors/oauth-error.ts";
import { parseScope } from "../../scopes/scope.ts";
import { ADMIN_SCOPE } from "../../config/reserved-scopes.ts";

/**
 * The spec's scope rules for client_credentials. Rule 2: scope omitted → every API scope in the
 * client's AllowedScopes, but the admin API's: that one is granted only when asked for by name, so that
 * no token carries it by default. Rule 4: a requested ID scope (openid, profile, …) → invalid_scope.
 * Anything else requested must be an API scope the client is allowed.
 */
export function clientCredentialsScope(requested: string | undefined, client: Client, scopes: ScopeRegistry): string[] {
  if (requested === undefined) {
    const all = [...client.allowedScopes].filter((s) => scopes.isApiScope(s) && s !== ADMIN_SCOPE);
    if (all.length === 0)
      throw invalidScope(
        client.allowedScopes.has(ADMIN_SCOPE)
          ? `ask for the scope '${ADMIN_SCOPE}' by name: it is never granted by default`
          : "the client is allowed no API scopes",
      );
    return all;
  }
  const wanted = parseScope(requested);
  if (wanted.length === 0) throw invalidScope("scope is empty");
  // Not an ID scope (SPEC "Scopes" lists it apart), but as unusable here: no user, so no refresh token.
  if (wanted.includes(OFFLINE_ACCESS))
    throw invalidScope("'offline_access' asks for a refresh token, which client_credentials does not issue");
  const idScope = wanted.find((s) => scopes.isIdentityScope(s));
  if (idScope !== undefined) throw invalidScope(`'${idScope}' is an ID scope; client_credentials takes API scopes only`);
  const notAllowed = wanted.find((s) => !client.allowedScopes.has(s) || !scopes.isApiScope(s));
  if (notAllowed !== undefined) throw invalidScope(`scope '${notAllowed}' is not allowed for this client`);
  return wanted;
}
