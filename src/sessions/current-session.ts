import type { IncomingMessage } from "node:http";
import type { Provider } from "../provider.ts";
import { SESSION_COOKIE } from "./session-cookie.ts";
import type { SsoSession } from "./sso-sessions.ts";

/** The browser's live SSO session, when its user is still active in the directory. */
export async function currentSession(provider: Provider, req: IncomingMessage): Promise<SsoSession | undefined> {
  const session = await provider.sessions.find(provider.cookies.read(req, SESSION_COOKIE));
  return session && provider.users.isActive(session.sub) ? session : undefined;
}
