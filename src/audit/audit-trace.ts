/** One line of an audit file, parsed: `time`, `type` and the act's facts. */
export interface AuditLine {
  time: string;
  type: string;
  [fact: string]: unknown;
}

/** The lines of an audit file that are audit events; anything else (a torn last line, a stray log line) is counted, not fatal. */
export function parseAuditLines(text: string): { lines: AuditLine[]; skipped: number } {
  const lines: AuditLine[] = [];
  let skipped = 0;
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    try {
      const parsed = JSON.parse(raw) as Partial<AuditLine>;
      if (typeof parsed.time === "string" && typeof parsed.type === "string") lines.push(parsed as AuditLine);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { lines, skipped };
}

/** The ids that tie events together. A user's sub does not: that would pull in every login of theirs. */
const LINKS = ["jti", "sid", "family", "login_id"] as const;
/**
 * A sign-out's id ties what one operator's sign-out of a user ended (user.signed_out says so); it is
 * followed only in that sign-out's own trace: a session's trace shows its session.ended, not the user's
 * other sessions ended with it.
 */
const SIGN_OUT_LINKS = [...LINKS, "signout_id"] as const;
type Link = (typeof SIGN_OUT_LINKS)[number];

/**
 * Every event of one token or session, in time order. Starting from `id` (a jti or a sid), each event
 * that names a known jti, sid, refresh family or login id joins, and adds its own ids:
 * - a token's trace (some event names `id` as a jti): its token.issued, its refresh family (rotations,
 *   reuse, revocation), the login its token.issued names (login_id) with that login's factors and the
 *   session it started, and its session's ends and single sign-out deliveries. Other tokens of the same
 *   session, and the other logins that renewed it (a re-login or step-up in the same browser keeps the
 *   sid), are not the token's: an event that joins only by the sid must be a session.* or logout.* event,
 *   and adds nothing.
 * - a session's trace: every event naming the sid, so every login that started or renewed it
 *   (session.started's login_id) and every token issued in it, with their families.
 * - a sign-out's trace (`id` is a user.signed_out's signout_id): the sign-out, and each session and token
 *   it ended with that session's or token's own trace.
 * Empty for an unknown id.
 */
export function traceEvents(lines: readonly AuditLine[], id: string): AuditLine[] {
  const ofToken = lines.some((line) => line.jti === id);
  const ofSignOut = !ofToken && lines.some((line) => line.type === "user.signed_out" && line.signout_id === id);
  const links: readonly Link[] = ofSignOut ? SIGN_OUT_LINKS : LINKS;
  const known = new Map<Link, Set<string>>(SIGN_OUT_LINKS.map((link) => [link, new Set()]));
  known.get(ofToken ? "jti" : ofSignOut ? "signout_id" : "sid")!.add(id);
  const found = new Set<AuditLine>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const line of lines) {
      if (found.has(line)) continue;
      const by = links.filter((link) => typeof line[link] === "string" && known.get(link)!.has(line[link] as string));
      if (by.length === 0) continue;
      const bySessionOnly = ofToken && by.length === 1 && by[0] === "sid";
      if (bySessionOnly && !SESSION_EVENT.test(line.type)) continue;
      found.add(line);
      grew = true;
      if (bySessionOnly) continue;
      for (const link of links) {
        const value = link === "login_id" ? loginOf(line, lines) : line[link];
        if (typeof value === "string") known.get(link)!.add(value);
      }
    }
  }
  // In the order they were written, then by time (a stable sort): two events of the same millisecond
  // (a login and the session it starts) keep the order the provider recorded them in, not the order the
  // links found them.
  return lines.filter((line) => found.has(line)).sort(byTime);
}

/** The events of a session's life, which a token's trace shows without following them further. */
const SESSION_EVENT = /^(session|logout)\./;

/**
 * The login a line leads the trace to: the one it names. A code's token.issued written before tokens
 * named their login names none: the login that last started its session before it was issued is the
 * one its authentication came from.
 */
function loginOf(line: AuditLine, lines: readonly AuditLine[]): unknown {
  if (line.type === "token.issued" && line.login_id === undefined && line.grant === "authorization_code" && typeof line.sid === "string") {
    return lines
      .filter((other) => other.type === "session.started" && other.sid === line.sid && other.time <= line.time)
      .sort(byTime)
      .at(-1)?.login_id;
  }
  return line.login_id;
}

function byTime(a: AuditLine, b: AuditLine): number {
  return a.time < b.time ? -1 : a.time > b.time ? 1 : 0;
}

/** `2026-11-26T10:00:00.000Z  login.succeeded  flow_id=default sub=E10001 amr=password path=a → b` */
export function formatAuditLine(line: AuditLine): string {
  const facts = Object.entries(line)
    .filter(([key]) => key !== "time" && key !== "type")
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(key === "path" ? " → " : ",") : String(value)}`);
  return `${line.time}  ${line.type.padEnd(28)}  ${facts.join(" ")}`;
}
