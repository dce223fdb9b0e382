import type { Client } from "../../oauth/client-registry.ts";
import { invalidScope } from "../../errors/oauth-error.ts";
import { parseScope } from "../../scopes/scope.ts";
import { OFFLINE_ACCESS } from "../../scopes/scope-registry.ts";

/**
 * Scope of a user-bound grant without an authorize request (password): omitted → every scope the
 * client is allowed except offline_access (a refresh token must be asked for); given → a subset of
 * the client's AllowedScopes.
 */
export function userGrantScope(requested: string | undefined, client: Client): string[] {
  if (requested === undefined) return [...client.allowedScopes].filter((s) => s !== OFFLINE_ACCESS);
  const wanted = parseScope(requested);
  if (wanted.length === 0) throw invalidScope("scope is empty");
  const notAllowed = wanted.find((s) => !client.allowedScopes.has(s));
  if (notAllowed !== undefined) throw invalidScope(`scope '${notAllowed}' is not allowed for this client`);
  return wanted;
}
