import type { Logger } from "pino";
import type { ClientRegistry } from "../oauth/client-registry.ts";
import type { BackChannelLogout } from "./back-channel-logout.ts";
import type { EndedSessions } from "./ended-sessions.ts";
import { frontChannelLogouts } from "./front-channel-logout.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { SsoSession, SsoSessions } from "./sso-sessions.ts";

/** What a single sign-out touches. */
export interface SignOutServices {
  readonly issuer: string;
  readonly logger: Logger;
  readonly audit: AuditTrail;
  readonly sessions: SsoSessions;
  readonly endedSessions: EndedSessions;
  readonly backChannelLogout: BackChannelLogout;
}

export interface SignOutResult {
  /** The session that ended; undefined when the cookie named none (already gone, expired, or another request took it). */
  session?: SsoSession;
  /** Front-channel logout iframes for the page the browser is shown next. */
  frontChannelUrls: string[];
}

/**
 * Single sign-out of the SSO session behind a cookie value: the session is taken atomically (of two
 * concurrent logouts only one notifies the clients), every client it served that registered a
 * back-channel logout URI gets a logout token in the background, the refresh tokens that end with the
 * session stop working (ended-sessions.ts), and the front-channel URLs are returned for the page.
 * Clearing the cookie is the caller's job (it owns the response). A cookie whose session an operator
 * ended gets that session's front-channel URLs instead (owedFrontChannel).
 */
export async function signOut(provider: SignOutServices, cookieValue: string | undefined, why: SignOutReason): Promise<SignOutResult> {
  const session = cookieValue ? await provider.sessions.destroy(cookieValue) : undefined;
  if (!session) return { frontChannelUrls: await owedFrontChannel(provider, cookieValue, why.frontChannel) };
  // Before anyone is told: a client that refreshes on a logout token must already be refused.
  await provider.endedSessions.record(session.sid);
  void provider.backChannelLogout.notify(session);
  provider.logger.info({ sid: session.sid, clients: session.clients.length }, "sso session ended");
  provider.audit.record({ type: "session.ended", sid: session.sid, sub: session.sub, reason: why.reason });
  if (why.frontChannel === undefined) return { session, frontChannelUrls: [] };
  return { session, frontChannelUrls: handedToBrowser(provider, why.frontChannel, session) };
}

/**
 * The front-channel logout owed to the browser of a session an operator ended (sign-out-user.ts): the
 * cookie names no session any more, but the first page that can show iframes shows that session's.
 */
export async function owedFrontChannel(
  provider: Pick<SignOutServices, "issuer" | "audit" | "sessions">,
  cookieValue: string | undefined,
  clients: ClientRegistry | undefined,
): Promise<string[]> {
  if (clients === undefined) return [];
  const owed = await provider.sessions.takeOwedFrontChannel(cookieValue);
  return owed === undefined ? [] : handedToBrowser(provider, clients, owed);
}

/** The session's front-channel logout URLs, each audited as delivered: handed to the browser as iframes, whether each loads only the browser knows. */
function handedToBrowser(
  provider: Pick<SignOutServices, "issuer" | "audit">,
  clients: ClientRegistry,
  session: Pick<SsoSession, "sid" | "clients">,
): string[] {
  const frontChannel = frontChannelLogouts(clients, provider.issuer, session);
  for (const { clientId } of frontChannel)
    provider.audit.record({ type: "logout.delivered", sid: session.sid, client_id: clientId, channel: "front", ok: true });
  return frontChannel.map(({ url }) => url);
}

/** Why a session ends (the audit trail's reason), and whether the caller shows the front-channel logout iframes. */
export interface SignOutReason {
  reason: "logout" | "force_login" | "user_inactive" | "other_user_logged_in";
  /** Given when the caller shows the front-channel logout iframes: the clients of the request's policy snapshot. */
  frontChannel?: ClientRegistry;
}
