import type { AccountHolder, UserAccess } from "../../sessions/user-access.ts";
import type { UserSignOut } from "../../sessions/sign-out-user.ts";
import { table } from "../support/text-table.ts";

/** "alice (sub E10001)", or the sub alone for an account outside the directory. */
function holder(user: AccountHolder): string {
  return user.username === undefined ? user.sub : `${user.username} (sub ${user.sub})`;
}

/** A heading with its count, then the table, or "none". */
function section(title: string, heading: string[], rows: string[][]): string {
  if (rows.length === 0) return `${title}: none\n`;
  const indented = table([heading, ...rows])
    .trimEnd()
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
  return `${title} (${rows.length}):\n${indented}\n`;
}

const list = (items: readonly string[]) => (items.length === 0 ? "-" : items.join(", "));

/** `portcullis users sessions`: what the user holds now, one table per kind. */
export function formatUserAccess(access: UserAccess): string {
  return [
    `${holder(access.user)}\n`,
    section(
      "sessions",
      ["SID", "STARTED", "LAST SEEN", "METHODS", "ADDRESS", "CLIENTS"],
      access.sessions.map((s) => [s.sid, s.startedAt, s.lastSeenAt, list(s.methods), s.address ?? "-", list(s.clients)]),
    ),
    section(
      "refresh-token families",
      ["FAMILY", "CLIENT", "ISSUED", "EXPIRES", "SESSION"],
      access.refreshFamilies.map((f) => [f.familyId, f.clientId, f.issuedAt, f.expiresAt, f.sid ?? "-"]),
    ),
    section(
      "access tokens outside a family",
      ["JTI", "CLIENT", "FORMAT", "ISSUED", "EXPIRES"],
      access.accessTokens.map((t) => [t.jti, t.clientId, t.format, t.issuedAt, t.expiresAt]),
    ),
  ].join("\n");
}

/** `portcullis users sign-out`: what it ended, and how each back-channel logout went. */
export function formatUserSignOut(outcome: UserSignOut): string {
  return [
    `signed out ${holder(outcome.user)} everywhere: signout_id ${outcome.signoutId} (portcullis audit trace -- ${outcome.signoutId})\n`,
    section(
      "sessions ended",
      ["SID", "CLIENTS", "FRONT-CHANNEL LOGOUT OWED TO THE BROWSER"],
      outcome.sessions.map((s) => [s.sid, list(s.clients), list(s.frontChannelOwed)]),
    ),
    section(
      "refresh-token families revoked (with every access token they issued)",
      ["FAMILY", "CLIENT"],
      outcome.refreshFamilies.map((f) => [f.familyId, f.clientId]),
    ),
    section(
      "access tokens outside a family ended (jti denied; a reference token's record deleted)",
      ["JTI", "CLIENT", "FORMAT"],
      outcome.accessTokens.map((t) => [t.jti, t.clientId, t.format]),
    ),
    section(
      "back-channel logout",
      ["SID", "CLIENT", "OUTCOME"],
      outcome.backChannel.map((d) => [d.sid, d.clientId, d.ok ? "delivered" : "FAILED (refused, or not reachable after retries)"]),
    ),
  ].join("\n");
}
