/**
 * Whether a proof's `htu` names `expected` (RFC 9449 §4.3 check 10): both without query and fragment,
 * compared as parsed URLs (RFC 3986 §6.2.3 normalisation by the URL parser: scheme and host case, a
 * default port, dot segments), so `HTTPS://Issuer:443/connect/token?x` matches `https://issuer/connect/token`.
 */
export function sameTarget(htu: string, expected: string): boolean {
  // What a client nearly always sends: the very URL, which needs no parsing to match.
  if (htu === expected) return true;
  const a = URL.parse(htu);
  const b = URL.parse(expected);
  if (a === null || b === null) return false;
  return withoutQuery(a) === withoutQuery(b);
}

function withoutQuery(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
