import type { IncomingMessage } from "node:http";
import type { Authentication } from "../oauth/authorization-request.ts";
import type { CookieJar } from "../http-kit/cookies.ts";
import { clientAddress } from "../security/client-address.ts";
import { SESSION_COOKIE } from "./session-cookie.ts";
import { signOut, type SignOutServices } from "./sign-out.ts";
import type { SsoSession } from "./sso-sessions.ts";

/** Whether the address of a request is the last X-Forwarded-For entry (provider.yaml listen.trust_proxy). */
interface ListenSettings {
  readonly settings: { readonly listen: { readonly trust_proxy: boolean } };
}

/**
 * The SSO session of a fresh login (a new cookie every time: no session fixation). A login over another
 * user's session signs that user out of their clients first; the same user's session is renewed (same
 * sid and clients, new cookie). The session keeps the address the login came from, for an operator's
 * list of the user's sessions.
 */
export async function startSession(
  infra: SignOutServices & ListenSettings & { readonly cookies: CookieJar },
  req: IncomingMessage,
  login: Authentication,
): Promise<{ cookie: string; session: SsoSession }> {
  const previousCookie = infra.cookies.read(req, SESSION_COOKIE);
  const previous = await infra.sessions.find(previousCookie);
  if (previous && previous.sub !== login.sub) await signOut(infra, previousCookie, { reason: "other_user_logged_in" });
  const address = clientAddress(req, infra.settings.listen.trust_proxy);
  const started = await infra.sessions.create(login, { previousCookie, continues: previous, address });
  infra.audit.record({
    type: "session.started",
    sid: started.session.sid,
    sub: login.sub,
    ...(login.loginId && { login_id: login.loginId }),
  });
  return started;
}
