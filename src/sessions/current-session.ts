import type { IncomingMessage } from "node:http";
import type { CookieJar } from "../http-kit/cookies.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import { SESSION_COOKIE } from "./session-cookie.ts";
import type { SsoSession, SsoSessions } from "./sso-sessions.ts";

/** What finding the current session reads: the cookie, the session records and the user directory. */
export interface SessionLookup {
  readonly cookies: CookieJar;
  readonly sessions: SsoSessions;
  readonly users: Pick<UserDirectory, "isActive">;
}

/** The browser's live SSO session, when its user is still active in the directory. */
export async function currentSession(provider: SessionLookup, req: IncomingMessage): Promise<SsoSession | undefined> {
  const session = await provider.sessions.find(provider.cookies.read(req, SESSION_COOKIE));
  return session && provider.users.isActive(session.sub) ? session : undefined;
}
