/** Scope strings (RFC 6749 §3.3): space-separated tokens; order does not matter, duplicates collapse. */
export function parseScope(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return [...new Set(scope.split(" ").filter((s) => s !== ""))];
}

export function formatScope(scopes: Iterable<string>): string {
  return [...scopes].join(" ");
}

/** The scopes of `requested` that are not in `allowed`. */
export function scopesOutside(requested: readonly string[], allowed: Iterable<string>): string[] {
  const allowedSet = allowed instanceof Set ? (allowed as Set<string>) : new Set(allowed);
  return requested.filter((s) => !allowedSet.has(s));
}
