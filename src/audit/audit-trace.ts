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
 * Every event of one token or session, in time order: starting from `id` (a jti or a sid), each event
 * that names a known jti, sid, refresh family or login id joins, and adds its own — so a jti leads to
 * its token.issued, that to its session (sid) and refresh family, the session to the login that
 * started it (session.started's login_id), and the login to its factors. Empty for an unknown id.
 */
export function traceEvents(lines: readonly AuditLine[], id: string): AuditLine[] {
  const known = new Map<(typeof LINKS)[number], Set<string>>(LINKS.map((link) => [link, new Set()]));
  known.get("jti")!.add(id);
  known.get("sid")!.add(id);
  const found = new Set<AuditLine>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const line of lines) {
      if (found.has(line) || !LINKS.some((link) => typeof line[link] === "string" && known.get(link)!.has(line[link] as string))) continue;
      found.add(line);
      grew = true;
      for (const link of LINKS) if (typeof line[link] === "string") known.get(link)!.add(line[link] as string);
    }
  }
  return [...found].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}

/** `2026-11-26T10:00:00.000Z  login.succeeded  flow_id=default sub=E10001 amr=password path=a → b` */
export function formatAuditLine(line: AuditLine): string {
  const facts = Object.entries(line)
    .filter(([key]) => key !== "time" && key !== "type")
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(key === "path" ? " → " : ",") : String(value)}`);
  return `${line.time}  ${line.type.padEnd(28)}  ${facts.join(" ")}`;
}
