import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { sessionKey, SsoSessions } from "../../src/sessions/sso-sessions.ts";
import { UserLedger } from "../../src/user-ledger/user-ledger.ts";

const HOUR = 3600_000;
const login = { sub: "E10001", authTime: 1_800_000_000, amr: ["password"], acr: "1fa" };

describe("SsoSessions", () => {
  let store: Store;
  let dir: string;
  let now: number;
  let sessions: SsoSessions;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "sessions-"));
    store = await createStore("embedded", { dataDir: dir, logger: pino({ level: "silent" }) });
    now = 1_800_000_000_000;
    sessions = new SsoSessions(store, () => now, { idle: 8 * 3600, absolute: 24 * 3600 }, new UserLedger(store, () => now));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds a session by its cookie value, and stores only a hash of it", async () => {
    const { cookie, session } = await sessions.create(login);
    expect(await sessions.find(cookie)).toEqual(session);
    expect(await store.namespace("sessions").get(cookie)).toBeUndefined();
  });

  it("ends a session left idle longer than the idle lifetime", async () => {
    const { cookie } = await sessions.create(login);
    now += 8 * HOUR + 1000;
    expect(await sessions.find(cookie)).toBeUndefined();
  });

  it("keeps a used session alive past the idle lifetime, but never past the absolute one", async () => {
    const { cookie, session } = await sessions.create(login);
    let current = session;
    for (let hours = 6; hours <= 24; hours += 6) {
      now = 1_800_000_000_000 + hours * HOUR - 1000;
      const found = await sessions.find(cookie);
      expect(found, `at ${hours} h`).toBeDefined();
      current = await sessions.touch(cookie, found!, "demo-web");
    }
    expect(current.clients).toEqual(["demo-web"]);
    now = 1_800_000_000_000 + 24 * HOUR + 1000;
    expect(await sessions.find(cookie)).toBeUndefined();
  });

  it("replaces the previous session at a new login (a new cookie value every time)", async () => {
    const first = await sessions.create(login);
    const second = await sessions.create(login, { previousCookie: first.cookie });
    expect(second.cookie).not.toBe(first.cookie);
    expect(second.session.sid).not.toBe(first.session.sid);
    expect(await sessions.find(first.cookie)).toBeUndefined();
    expect(await sessions.find(second.cookie)).toBeDefined();
  });

  it("renews the same user's session with its sid and clients, but never another user's", async () => {
    const first = await sessions.create(login);
    const used = await sessions.touch(first.cookie, first.session, "demo-web");
    const renewed = await sessions.create({ ...login, authTime: login.authTime + 60 }, { previousCookie: first.cookie, continues: used });
    expect(renewed.cookie).not.toBe(first.cookie);
    expect(renewed.session).toMatchObject({ sid: used.sid, clients: ["demo-web"], authTime: login.authTime + 60 });
    const other = await sessions.create({ ...login, sub: "E10002" }, { previousCookie: renewed.cookie, continues: renewed.session });
    expect(other.session.sid).not.toBe(used.sid);
    expect(other.session.clients).toEqual([]);
  });

  it("records each client once and ends the session on destroy", async () => {
    const { cookie, session } = await sessions.create(login);
    const once = await sessions.touch(cookie, session, "demo-web");
    const twice = await sessions.touch(cookie, once, "demo-spa");
    expect((await sessions.touch(cookie, twice, "demo-web")).clients).toEqual(["demo-web", "demo-spa"]);
    expect((await sessions.destroy(cookie))?.sid).toBe(session.sid);
    expect(await sessions.find(cookie)).toBeUndefined();
    expect(await sessions.destroy(cookie)).toBeUndefined();
  });

  it("files each session in its user's ledger under its store key, with the address of its login", async () => {
    const { cookie, session } = await sessions.create(login, { address: "192.0.2.7" });
    expect(session.address).toBe("192.0.2.7");
    const [entry, ...more] = await new UserLedger(store, () => now).list("E10001");
    expect(more).toEqual([]);
    expect(entry).toEqual({ kind: "session", key: sessionKey(cookie), sid: session.sid, until: now + 24 * HOUR });
    expect(await store.namespace("sessions").get(sessionKey(cookie))).toMatchObject({ sid: session.sid });
  });

  it("shows an operator the live session under a key, with every client, and ends it by that key as a logout does", async () => {
    const { cookie, session } = await sessions.create(login);
    const used = await sessions.touch(cookie, session, "demo-web");
    expect((await sessions.inspect(sessionKey(cookie)))?.clients).toEqual(["demo-web"]);
    expect((await sessions.end(sessionKey(cookie)))?.clients).toEqual(["demo-web"]);
    // A use that read the session before it was ended writes after: the tombstone undoes it.
    await sessions.touch(cookie, used, "demo-spa");
    expect(await sessions.find(cookie)).toBeUndefined();
    expect(await sessions.inspect(sessionKey(cookie))).toBeUndefined();
    expect(await sessions.end(sessionKey(cookie))).toBeUndefined();
  });

  it("keeps the front-channel logout owed to an ended session's browser for its cookie, once", async () => {
    const { cookie, session } = await sessions.create(login);
    await sessions.end(sessionKey(cookie));
    await sessions.oweFrontChannel(sessionKey(cookie), { sid: session.sid, clients: ["demo-web"] });
    expect(await sessions.takeOwedFrontChannel("another-cookie")).toBeUndefined();
    expect(await sessions.takeOwedFrontChannel(cookie)).toEqual({ sid: session.sid, clients: ["demo-web"] });
    expect(await sessions.takeOwedFrontChannel(cookie)).toBeUndefined();
  });

  it("ignores absent and oversized cookie values", async () => {
    expect(await sessions.find(undefined)).toBeUndefined();
    expect(await sessions.find("x".repeat(5000))).toBeUndefined();
  });
});
