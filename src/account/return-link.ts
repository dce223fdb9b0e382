import type { Client } from "../oauth/client-registry.ts";

/**
 * Where "Back to the application" on the account page leads, for `?client_id=`: never a URL from the
 * request (an open redirect to a phishing page), only what the client registered — its first
 * post-logout URI, else the origin of its first web redirect URI (the application's home, not its
 * callback, which would start a broken login). Undefined when the client registered neither.
 */
export function returnLink(client: Client): string | undefined {
  const [postLogout] = client.postLogoutRedirectUris;
  if (postLogout !== undefined) return postLogout;
  for (const uri of client.redirectUris) {
    const url = URL.parse(uri);
    if (url && (url.protocol === "https:" || url.protocol === "http:")) return `${url.origin}/`;
  }
  return undefined;
}
