import { randomToken } from "../crypto/random-token.ts";
import type { AuditActor } from "../audit/audit-event.ts";
import type { AccessTokenEntry, LedgerEntry, RefreshFamilyEntry, SessionEntry } from "../user-ledger/user-ledger.ts";
import type { LogoutDelivery } from "./back-channel-logout.ts";
import { frontChannelLogouts } from "./front-channel-logout.ts";
import type { SsoSession } from "./sso-sessions.ts";
import type { AccountHolder, UserAccessPolicy, UserAccessServices } from "./user-access.ts";

/** A session the sign-out ended. */
export interface EndedSessionView {
  sid: string;
  clients: string[];
  /** The clients whose front-channel logout the browser is owed: the next page it loads from the provider carries their iframes. */
  frontChannelOwed: string[];
}

/** What one sign-out of a user ended, and how each back-channel delivery went. */
export interface UserSignOut {
  /** The audit trail's id of this sign-out: `portcullis audit trace <signoutId>` shows all of it. */
  signoutId: string;
  user: AccountHolder;
  sessions: EndedSessionView[];
  refreshFamilies: { familyId: string; clientId: string }[];
  /** Access tokens outside a family: JWTs denied by jti, reference tokens revoked (their records deleted, their jti denied too). */
  accessTokens: { jti: string; clientId: string; format: "jwt" | "reference" }[];
  backChannel: (LogoutDelivery & { sid: string })[];
}

/**
 * Passes over the user's ledger: a sign-out ends what it finds, then looks again for what was filed while
 * it worked (a login or a token request finishing on another node), until a pass finds nothing new.
 */
const MAX_PASSES = 3;

/**
 * Ends the user's access now, on every node (issue 27 §2): every SSO session (with the tombstone a
 * logout leaves, so no racing use revives it; the sid recorded as ended, so the refresh tokens bound to
 * it stop too), every refresh-token family (and with it every access token it issued), every access
 * token outside a family (a JWT's jti denied until it expires, a reference token's record deleted). Only
 * then is each session's client told, by back-channel logout — a client that refreshes on the logout
 * token is already refused — and the deliveries are awaited, so the caller can say how each went.
 * Front-channel logout needs the browser: it is owed to it, and the next page it loads from the provider
 * with the ended session's cookie carries the iframes (SsoSessions.oweFrontChannel).
 *
 * What it finds is what the user's ledger lists (src/user-ledger/): a session or token issued before
 * this version kept a ledger is not in it, and ends at its own expiry. A sign-out does not stop the user
 * from signing in again: disable the user in the directory for that. Every act is audited under one
 * `signout_id` with who did it.
 */
export async function signOutUser(
  services: UserAccessServices,
  policy: Pick<UserAccessPolicy, "clients">,
  user: AccountHolder,
  actor: AuditActor,
): Promise<UserSignOut> {
  const signoutId = randomToken(16);
  const outcome: UserSignOut = { signoutId, user, sessions: [], refreshFamilies: [], accessTokens: [], backChannel: [] };
  const ended: SsoSession[] = [];
  const seen = new Set<string>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const fresh = (await services.userLedger.list(user.sub)).filter((entry) => !seen.has(entryId(entry)));
    if (fresh.length === 0) break;
    for (const entry of fresh) seen.add(entryId(entry));
    const context = { services, policy, user, signoutId, outcome, ended };
    await Promise.all(fresh.map((entry) => endEntry(context, entry)));
  }
  const deliveries = await Promise.all(
    ended.map(async (session) => (await services.backChannelLogout.notify(session)).map((delivery) => ({ sid: session.sid, ...delivery }))),
  );
  outcome.backChannel = deliveries.flat();
  services.logger.info(
    { sub: user.sub, signoutId, sessions: outcome.sessions.length, families: outcome.refreshFamilies.length },
    "user signed out by an operator",
  );
  services.audit.record({
    type: "user.signed_out",
    sub: user.sub,
    signout_id: signoutId,
    sessions: outcome.sessions.length,
    refresh_families: outcome.refreshFamilies.length,
    access_tokens: outcome.accessTokens.length,
    ...actor,
  });
  return outcome;
}

interface SignOutContext {
  services: UserAccessServices;
  policy: Pick<UserAccessPolicy, "clients">;
  user: AccountHolder;
  signoutId: string;
  outcome: UserSignOut;
  /** The sessions ended, with their clients, for the back-channel logout once everything is ended. */
  ended: SsoSession[];
}

function entryId(entry: LedgerEntry): string {
  if (entry.kind === "session") return `session:${entry.key}`;
  return entry.kind === "refresh_family" ? `family:${entry.familyId}` : `token:${entry.jti}`;
}

function endEntry(context: SignOutContext, entry: LedgerEntry): Promise<void> {
  if (entry.kind === "session") return endSession(context, entry);
  return entry.kind === "refresh_family" ? endFamily(context, entry) : endAccessToken(context, entry);
}

/** Ends the session as a logout would, and owes its browser the front-channel logout; nothing if it has ended already. */
async function endSession({ services, policy, user, signoutId, outcome, ended }: SignOutContext, entry: SessionEntry): Promise<void> {
  const session = await services.sessions.end(entry.key);
  if (session === undefined) return;
  await services.endedSessions.record(session.sid);
  const frontChannel = frontChannelLogouts(policy.clients, services.issuer, session).map(({ clientId }) => clientId);
  if (frontChannel.length > 0) await services.sessions.oweFrontChannel(entry.key, { sid: session.sid, clients: frontChannel });
  ended.push(session);
  outcome.sessions.push({ sid: session.sid, clients: session.clients, frontChannelOwed: frontChannel });
  services.audit.record({ type: "session.ended", sid: session.sid, sub: user.sub, reason: "signed_out", signout_id: signoutId });
}

/** Revokes the family, and every access token it issued; nothing if it was revoked already. */
async function endFamily({ services, user, signoutId, outcome }: SignOutContext, entry: RefreshFamilyEntry): Promise<void> {
  if (await services.accessTokenDenylist.isFamilyRevoked(entry.familyId)) return;
  await services.refreshTokens.revokeFamily({ familyId: entry.familyId, expiresAt: entry.until });
  outcome.refreshFamilies.push({ familyId: entry.familyId, clientId: entry.clientId });
  services.audit.record({
    type: "token.revoked",
    client_id: entry.clientId,
    token_type: "refresh_token",
    family: entry.familyId,
    sub: user.sub,
    signout_id: signoutId,
  });
}

/** Denies the token's jti until it expires (and deletes a reference token's record); nothing if it had ended already. */
async function endAccessToken({ services, user, signoutId, outcome }: SignOutContext, entry: AccessTokenEntry): Promise<void> {
  const { jti, referenceKey } = entry;
  if (await services.accessTokenDenylist.isRevoked(jti)) return;
  // A reference token whose record is gone was revoked already (at the revocation endpoint).
  if (referenceKey !== undefined && !(await services.referenceTokens.revokeByKey(referenceKey))) return;
  await services.accessTokenDenylist.revoke(jti, Math.ceil(entry.until / 1000));
  outcome.accessTokens.push({ jti, clientId: entry.clientId, format: referenceKey === undefined ? "jwt" : "reference" });
  services.audit.record({
    type: "token.revoked",
    client_id: entry.clientId,
    token_type: "access_token",
    jti,
    sub: user.sub,
    signout_id: signoutId,
  });
}
