/**
 * traceEvents on a trail where one browser session saw two logins (alice, then a re-login in the same
 * browser that renews the session under the same sid) and a token after each: a token's trace is its
 * own login's, a session's trace has both. Trails written before token.issued named its login are
 * traced by time.
 */
import { describe, expect, it } from "vitest";
import { traceEvents, type AuditLine } from "../../src/audit/audit-trace.ts";

const at = (second: number) => `2026-11-26T10:00:${String(second).padStart(2, "0")}.000Z`;

function trail(withLoginIds = true): AuditLine[] {
  const issued = (second: number, jti: string, login: string, extra: Record<string, unknown> = {}): AuditLine => ({
    time: at(second),
    type: "token.issued",
    grant: "authorization_code",
    client_id: "demo-web",
    sub: "alice",
    jti,
    sid: "S",
    ...(withLoginIds && { login_id: login }),
    ...extra,
  });
  return [
    { time: at(1), type: "factor.passed", method: "password", flow_id: "default", login_id: "L1", sub: "alice" },
    {
      time: at(2),
      type: "login.succeeded",
      flow_id: "default",
      path: ["signingIn.password", "authenticated"],
      login_id: "L1",
      sub: "alice",
    },
    { time: at(3), type: "session.started", sid: "S", sub: "alice", login_id: "L1" },
    issued(4, "J1", "L1", { family: "F1" }),
    { time: at(5), type: "factor.passed", method: "appotp", flow_id: "default", login_id: "L2", sub: "alice" },
    { time: at(6), type: "login.succeeded", flow_id: "default", path: ["signingIn.appotp", "authenticated"], login_id: "L2", sub: "alice" },
    { time: at(7), type: "session.started", sid: "S", sub: "alice", login_id: "L2" },
    issued(8, "J2", "L2"),
    // A refresh of J1's family: grants carry no login id; the family leads back to J1's.
    { time: at(9), type: "token.issued", grant: "refresh_token", client_id: "demo-web", sub: "alice", jti: "J3", sid: "S", family: "F1" },
    { time: at(10), type: "session.ended", sid: "S", sub: "alice", reason: "logout" },
    { time: at(11), type: "logout.delivered", sid: "S", client_id: "demo-web", channel: "back", ok: true },
    // Someone else's login: nothing ties it to this session.
    {
      time: at(12),
      type: "login.succeeded",
      flow_id: "default",
      path: ["signingIn.password", "authenticated"],
      login_id: "L9",
      sub: "bob",
    },
  ];
}

const seconds = (lines: AuditLine[]) => lines.map((line) => Number(line.time.slice(17, 19)));

describe("audit trace of a session that two logins started", () => {
  it("a token's trace has its own login, its family and the session's life, not the other login or its token", () => {
    expect(seconds(traceEvents(trail(), "J1"))).toEqual([1, 2, 3, 4, 7, 9, 10, 11]);
    // The later login's renewal of the session shows (7), as a session event; its factor, success and token do not.
  });

  it("a refreshed token leads back through its family to the same login", () => {
    expect(seconds(traceEvents(trail(), "J3"))).toEqual([1, 2, 3, 4, 7, 9, 10, 11]);
  });

  it("the later token's trace has the later login", () => {
    expect(seconds(traceEvents(trail(), "J2"))).toEqual([3, 5, 6, 7, 8, 10, 11]);
  });

  it("the session's trace has both logins and every token issued in it", () => {
    expect(seconds(traceEvents(trail(), "S"))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("in a trail whose token.issued lines name no login, a code's token goes to the login that last started its session before it", () => {
    expect(seconds(traceEvents(trail(false), "J1"))).toEqual([1, 2, 3, 4, 7, 9, 10, 11]);
    expect(seconds(traceEvents(trail(false), "J2"))).toEqual([3, 5, 6, 7, 8, 10, 11]);
  });

  it("an unknown id traces nothing", () => {
    expect(traceEvents(trail(), "nope")).toEqual([]);
  });
});

/** Alice's two sessions (each a login and a token), bob's session, then an operator's sign-out of alice (O) that ends hers. */
function signOutTrail(): AuditLine[] {
  const login = (second: number, login: string, sid: string, sub = "alice"): AuditLine[] => [
    { time: at(second), type: "login.succeeded", flow_id: "default", path: ["signingIn.password", "authenticated"], login_id: login, sub },
    { time: at(second + 1), type: "session.started", sid, sub, login_id: login },
  ];
  const issued = (second: number, jti: string, sid: string, login: string, family?: string): AuditLine => ({
    time: at(second),
    type: "token.issued",
    grant: "authorization_code",
    client_id: "demo-web",
    sub: "alice",
    jti,
    sid,
    login_id: login,
    ...(family !== undefined && { family }),
  });
  const ended = (second: number, sid: string): AuditLine[] => [
    { time: at(second), type: "session.ended", sid, sub: "alice", reason: "signed_out", signout_id: "O" },
    { time: at(second + 1), type: "logout.delivered", sid, client_id: "demo-web", channel: "back", ok: true },
  ];
  return [
    ...login(1, "L1", "S1"),
    issued(3, "J1", "S1", "L1", "F1"),
    ...login(4, "L2", "S2"),
    issued(6, "J2", "S2", "L2"),
    ...login(7, "L9", "S9", "bob"),
    ...ended(20, "S1"),
    ...ended(22, "S2"),
    {
      time: at(24),
      type: "token.revoked",
      client_id: "demo-web",
      token_type: "refresh_token",
      family: "F1",
      sub: "alice",
      signout_id: "O",
    },
    { time: at(25), type: "token.revoked", client_id: "demo-web", token_type: "access_token", jti: "J2", sub: "alice", signout_id: "O" },
    {
      time: at(26),
      type: "user.signed_out",
      sub: "alice",
      signout_id: "O",
      by: "cli",
      operator: "root",
      sessions: 2,
      refresh_families: 1,
      access_tokens: 1,
    },
  ];
}

describe("audit trace of an operator's sign-out of a user", () => {
  it("the sign-out's trace has everything it ended, each with where it came from, and nobody else's", () => {
    expect(seconds(traceEvents(signOutTrail(), "O"))).toEqual([1, 2, 3, 4, 5, 6, 20, 21, 22, 23, 24, 25, 26]);
  });

  it("a session's trace shows its end by the sign-out, not the other sessions the sign-out ended", () => {
    expect(seconds(traceEvents(signOutTrail(), "S1"))).toEqual([1, 2, 3, 20, 21, 24]);
  });

  it("a token's trace shows its revocation by the sign-out", () => {
    expect(seconds(traceEvents(signOutTrail(), "J2"))).toEqual([4, 5, 6, 22, 23, 25]);
  });
});
