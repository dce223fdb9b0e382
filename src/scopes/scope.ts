/** Scope strings (RFC 6749 §3.3): space-separated tokens; order does not matter, duplicates collapse. */
export function parseScope(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  const parts = scope.split(" ");
  // A Set only for long lists: every token and authorize request parses a scope of a few names, where a
  // linear duplicate check is cheaper than building a Set; a long one (a hostile request) stays linear time.
  if (parts.length > 16) return [...new Set(parts.filter((s) => s !== ""))];
  const names: string[] = [];
  for (const name of parts) if (name !== "" && !names.includes(name)) names.push(name);
  return names;
}

export function formatScope(scopes: Iterable<string>): string {
  return Array.isArray(scopes) ? scopes.join(" ") : [...scopes].join(" ");
}

/** The scopes of `requested` that are not in `allowed`. */
export function scopesOutside(requested: readonly string[], allowed: Iterable<string>): string[] {
  const allowedSet = allowed instanceof Set ? (allowed as Set<string>) : new Set(allowed);
  return requested.filter((s) => !allowedSet.has(s));
}
