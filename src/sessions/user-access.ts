import type { Logger } from "pino";
import type { Clock } from "../time/clock.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { AuditActor } from "../audit/audit-event.ts";
import type { ClientRegistry } from "../oauth/client-registry.ts";
import type { RefreshTokens } from "../oauth/refresh-tokens.ts";
import type { AccessTokenDenylist } from "../tokens/access-token-denylist.ts";
import type { ReferenceTokens } from "../tokens/reference-tokens.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import type { LedgerEntry, UserLedger } from "../user-ledger/user-ledger.ts";
import type { BackChannelLogout } from "./back-channel-logout.ts";
import type { EndedSessions } from "./ended-sessions.ts";
import type { SsoSessions } from "./sso-sessions.ts";

/** What an operator's view and sign-out of a user use of the infrastructure (the CLI and the admin API pass theirs). */
export interface UserAccessServices {
  readonly issuer: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly audit: AuditTrail;
  readonly userLedger: Pick<UserLedger, "list">;
  readonly sessions: Pick<SsoSessions, "inspect" | "end" | "oweFrontChannel">;
  readonly endedSessions: Pick<EndedSessions, "record">;
  readonly backChannelLogout: Pick<BackChannelLogout, "notify">;
  readonly refreshTokens: Pick<RefreshTokens, "revokeFamily">;
  readonly accessTokenDenylist: Pick<AccessTokenDenylist, "revoke" | "isRevoked" | "isFamilyRevoked">;
  readonly referenceTokens: Pick<ReferenceTokens, "exists" | "revokeByKey">;
}

/** What of the policy snapshot they read: the directory (who the user is) and the clients (front-channel logout). */
export interface UserAccessPolicy {
  readonly users: Pick<UserDirectory, "findByUsername" | "findBySub" | "hasAccount">;
  readonly clients: ClientRegistry;
}

/** The user an operator named. */
export interface AccountHolder {
  sub: string;
  /** The login name, for an employee of the directory. */
  username?: string;
}

/**
 * The user `name` stands for: a login name (case-insensitive) or an employee's sub, else an external
 * account's sub (a vendor account `<client_id>:<account>`, an eID account); undefined for nobody.
 */
export async function findAccountHolder(users: UserAccessPolicy["users"], name: string): Promise<AccountHolder | undefined> {
  const employee = (await users.findByUsername(name)) ?? (await users.findBySub(name));
  if (employee !== undefined) return { sub: employee.sub, username: employee.username };
  return (await users.hasAccount(name)) ? { sub: name } : undefined;
}

/** A live SSO session of the user, as an operator sees it (times ISO 8601). */
export interface SessionView {
  sid: string;
  startedAt: string;
  lastSeenAt: string;
  /** The factor methods of its (latest) login, else its amr. */
  methods: string[];
  /** Every client it signed in to. */
  clients: string[];
  /** The client address of its login; absent for a session from before addresses were kept. */
  address?: string;
}

export interface RefreshFamilyView {
  familyId: string;
  clientId: string;
  issuedAt: string;
  expiresAt: string;
  sid?: string;
}

/** An access token outside a refresh family (a family's end with their family). */
export interface AccessTokenView {
  jti: string;
  clientId: string;
  format: "jwt" | "reference";
  issuedAt: string;
  expiresAt: string;
}

/** Everything a user holds now. */
export interface UserAccess {
  user: AccountHolder;
  sessions: SessionView[];
  refreshFamilies: RefreshFamilyView[];
  accessTokens: AccessTokenView[];
}

/**
 * Lists what the user holds now — live SSO sessions, refresh-token families not revoked, access tokens
 * outside a family not revoked — from the user's ledger (src/user-ledger/), each checked against its own
 * record; audited as user.sessions_listed with who asked.
 */
export async function listUserAccess(services: UserAccessServices, user: AccountHolder, actor: AuditActor): Promise<UserAccess> {
  const access: UserAccess = { user, sessions: [], refreshFamilies: [], accessTokens: [] };
  const entries = await services.userLedger.list(user.sub);
  await Promise.all(entries.map((entry) => addIfLive(services, entry, access)));
  const byTime = (a: { issuedAt: string }, b: { issuedAt: string }) => a.issuedAt.localeCompare(b.issuedAt);
  access.sessions.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  access.refreshFamilies.sort(byTime);
  access.accessTokens.sort(byTime);
  services.audit.record({ type: "user.sessions_listed", sub: user.sub, ...actor });
  return access;
}

/** Adds what a ledger entry names to `access`, when it is still live. */
async function addIfLive(services: UserAccessServices, entry: LedgerEntry, access: UserAccess): Promise<void> {
  if (entry.kind === "session") {
    const session = await services.sessions.inspect(entry.key);
    if (session === undefined) return;
    access.sessions.push({
      sid: session.sid,
      startedAt: iso(session.createdAt),
      lastSeenAt: iso(session.lastSeenAt),
      methods: session.methods ?? session.amr,
      clients: session.clients,
      ...(session.address !== undefined && { address: session.address }),
    });
  } else if (entry.kind === "refresh_family") {
    if (await services.accessTokenDenylist.isFamilyRevoked(entry.familyId)) return;
    access.refreshFamilies.push({
      familyId: entry.familyId,
      clientId: entry.clientId,
      issuedAt: iso(entry.issuedAt),
      expiresAt: iso(entry.until),
      ...(entry.sid !== undefined && { sid: entry.sid }),
    });
  } else {
    const reference = entry.referenceKey;
    // A reference token also ends when its record goes (the revocation endpoint deletes it).
    if (await services.accessTokenDenylist.isRevoked(entry.jti)) return;
    if (reference !== undefined && !(await services.referenceTokens.exists(reference))) return;
    access.accessTokens.push({
      jti: entry.jti,
      clientId: entry.clientId,
      format: reference === undefined ? "jwt" : "reference",
      issuedAt: iso(entry.issuedAt),
      expiresAt: iso(entry.until),
    });
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();
