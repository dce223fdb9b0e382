import { invalidScope } from "../../errors/oauth-error.ts";
import { parseScope, scopesOutside } from "../../scopes/scope.ts";

/**
 * The scope of a token request that draws on an earlier grant (a code, a refresh token): omitted → the
 * whole grant (SPEC scope rule 1, RFC 6749 §6); given → a subset of it (rule 3), never more.
 */
export function grantedScope(requested: string | undefined, granted: readonly string[]): string[] {
  if (requested === undefined) return [...granted];
  const wanted = parseScope(requested);
  if (wanted.length === 0) throw invalidScope("scope is empty");
  const outside = scopesOutside(wanted, granted);
  if (outside.length > 0) throw invalidScope(`scope '${outside[0]!.slice(0, 64)}' was not granted`);
  return wanted;
}
