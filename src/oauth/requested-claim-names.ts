import type { ScopeRegistry } from "../scopes/scope-registry.ts";
import type { RequestedClaims } from "./claims-request.ts";
import type { Client } from "./client-registry.ts";

/**
 * The claims a `claims` parameter added, by where they go, as the code and the refresh token keep them
 * (so a refreshed ID token and every userinfo answer on the grant's access tokens carry them too).
 */
export interface RequestedClaimNames {
  userinfo?: string[];
  idToken?: string[];
}

/**
 * The claims of a claims request this client may receive: those some identity scope the client is allowed
 * (clients.yaml allowed_scopes) releases, whether or not the request asked for that scope. OIDC lets a
 * claims request reach beyond the scopes; here it never reaches beyond what the operators allowed the
 * client (docs/decisions.md "The claims parameter"). Protocol claims (acr, auth_time, …) are the issuer's
 * own and not released from here. Undefined when nothing is added.
 */
export function releasableClaims(
  requested: RequestedClaims,
  client: Pick<Client, "allowedScopes">,
  scopes: Pick<ScopeRegistry, "claimsFor" | "isIdentityScope">,
): RequestedClaimNames | undefined {
  const allowed = allowedClaims(client, scopes);
  const userinfo = requested.userinfo.filter((name) => allowed.has(name));
  const idToken = requested.idToken.filter((name) => allowed.has(name));
  if (userinfo.length === 0 && idToken.length === 0) return undefined;
  return { ...(userinfo.length > 0 && { userinfo }), ...(idToken.length > 0 && { idToken }) };
}

/** What the client's allowed identity scopes release, `sub` aside (every answer has it anyway). */
export function allowedClaims(
  client: Pick<Client, "allowedScopes">,
  scopes: Pick<ScopeRegistry, "claimsFor" | "isIdentityScope">,
): Set<string> {
  const names = scopes.claimsFor([...client.allowedScopes].filter((scope) => scopes.isIdentityScope(scope)));
  names.delete("sub");
  return names;
}
