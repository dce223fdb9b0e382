/**
 * Appends query parameters to a registered URI without re-serialising it: the URI stays byte for byte
 * as registered (a URL object would normalise it), `?` or `&` joins, a fragment stays last, and each
 * value is percent-encoded so that it decodes back to exactly what was given.
 */
export function appendQuery(uri: string, params: ReadonlyArray<readonly [string, string]>): string {
  if (params.length === 0) return uri;
  const hash = uri.indexOf("#");
  const base = hash === -1 ? uri : uri.slice(0, hash);
  const fragment = hash === -1 ? "" : uri.slice(hash);
  const query = params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&");
  const joiner = !base.includes("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
  return base + joiner + query + fragment;
}
