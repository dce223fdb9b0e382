import { declarationOf } from "./acr-values.ts";
import type { AcrDeclaration } from "./login-policy.ts";

/**
 * What an eID login asks of its upstream: the declared acr values the request sends (`2FA` is the
 * declared `2fa`, as everywhere) that the upstream's `acr.forward` names, as declared, in the order
 * sent, each once. They are read from acr_values as sent, not from what the login plan took: at
 * /eID/authorize a value like `2fa` selects another login type, so the plan sets it aside for this
 * provider's own login, yet it is exactly what the upstream is to perform.
 */
export function acrAskedOfUpstream(
  acrValues: string | undefined,
  declared: ReadonlyMap<string, AcrDeclaration>,
  forwarded: ReadonlySet<string>,
): string[] {
  const asked: string[] = [];
  for (const sent of (acrValues ?? "").split(" ")) {
    if (sent === "") continue;
    const name = declarationOf(sent, declared)?.name;
    if (name !== undefined && forwarded.has(name.toLowerCase()) && !asked.includes(name)) asked.push(name);
  }
  return asked;
}
