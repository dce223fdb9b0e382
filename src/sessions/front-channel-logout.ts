import type { ClientRegistry } from "../oauth/client-registry.ts";
import { appendQuery } from "../http-kit/append-query.ts";
import type { SsoSession } from "./sso-sessions.ts";

/**
 * OpenID Connect Front-Channel Logout 1.0 §2–3: the iframe URL (and the client) of every client of the session that
 * registered a frontchannel_logout_uri, with `iss` and `sid` when it asked for them
 * (frontchannel_logout_session_required, on by default).
 */
export function frontChannelLogouts(
  clients: ClientRegistry,
  issuer: string,
  session: Pick<SsoSession, "sid" | "clients">,
): { clientId: string; url: string }[] {
  const urls: { clientId: string; url: string }[] = [];
  for (const clientId of session.clients) {
    const config = clients.get(clientId)?.config;
    const uri = config?.frontchannel_logout_uri;
    if (uri === undefined) continue;
    urls.push({
      clientId,
      url: config!.frontchannel_logout_session_required
        ? appendQuery(uri, [
            ["iss", issuer],
            ["sid", session.sid],
          ])
        : uri,
    });
  }
  return urls;
}
