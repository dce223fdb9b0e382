import type { IncomingMessage } from "node:http";
import type { CookieJar } from "../http-kit/cookies.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import { SESSION_COOKIE } from "./session-cookie.ts";
import type { SsoSession, SsoSessions } from "./sso-sessions.ts";

/** What finding the current session reads (a request's scope): the cookie, the session records and the policy's directory. */
export interface SessionLookup {
  readonly infra: { readonly cookies: CookieJar; readonly sessions: SsoSessions };
  readonly policy: { readonly users: Pick<UserDirectory, "isActive"> };
}

/** The browser's live SSO session, when its user is still active in the directory. */
export async function currentSession({ infra, policy }: SessionLookup, req: IncomingMessage): Promise<SsoSession | undefined> {
  const session = await infra.sessions.find(infra.cookies.read(req, SESSION_COOKIE));
  return session && (await policy.users.isActive(session.sub)) ? session : undefined;
}
