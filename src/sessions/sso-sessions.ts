import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { Clock } from "../time/clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import type { Authentication } from "../oauth/authorization-request.ts";
import { randomToken } from "../crypto/random-token.ts";
import type { UserLedger } from "../user-ledger/user-ledger.ts";

/** One browser's single sign-on session. Stored under the SHA-256 of the cookie value. */
export interface SsoSession extends Authentication {
  /** The session id in ID tokens (`sid`) and logout tokens; not the cookie value. */
  sid: string;
  /** Epoch ms. */
  createdAt: number;
  lastSeenAt: number;
  clients: string[];
  /** The client address the login came from (src/security/client-address.ts); absent in sessions from before. */
  address?: string;
}

/** Front-channel logout a browser is owed: its session was ended without it there to load the iframes (sign-out-user.ts). */
export interface OwedFrontChannel {
  sid: string;
  /** The clients of the ended session that registered a frontchannel_logout_uri. */
  clients: string[];
}

/** The store key of the session behind a cookie value: its hash (a store dump reveals no usable cookie). */
export const sessionKey = (cookieValue: string): string => storeKeyHash(cookieValue);

export interface SessionLifetimes {
  /** Seconds without use after which the session ends. */
  idle: number;
  /** Seconds after creation after which the session ends whatever its use. */
  absolute: number;
}

const TOUCH_INTERVAL_MS = 60_000;
/** Client slots per session: more distinct clients than this in one browser session are not tracked. */
const MAX_CLIENTS_PER_SESSION = 256;

/** What a new session records beyond the login: the session it renews, the cookie it replaces, where the login came from. */
export interface SessionStart {
  /** The browser's previous handle, removed (a new handle at every login: no session fixation). */
  previousCookie?: string | undefined;
  /** The session this login renews for the same user: its sid and clients carry over. */
  continues?: SsoSession | undefined;
  address?: string | undefined;
}

/**
 * SSO sessions. The browser holds only a random handle (the cookie value); the store holds the session
 * under its hash, so a store dump reveals no usable cookie. A login always starts a new handle (session
 * fixation); logout deletes the record. Each session is filed in its user's ledger (src/user-ledger/)
 * under that same hash, so that an operator can end it without its cookie (end()).
 */
export class SsoSessions {
  private readonly clock: Clock;
  private readonly lifetimes: SessionLifetimes;
  private readonly ledger: Pick<UserLedger, "record">;
  private readonly records: RecordStore<SsoSession>;
  /**
   * `ended:<hash>` tombstones, `client:<sid>:<n>` entries and `frontchannel:<hash>` owed front-channel
   * logouts share the namespace (a hash has no ':').
   */
  private readonly marks: RecordStore<string | true>;
  private readonly owed: RecordStore<OwedFrontChannel>;

  constructor(store: Store, clock: Clock, lifetimes: SessionLifetimes, ledger: Pick<UserLedger, "record">) {
    this.clock = clock;
    this.lifetimes = lifetimes;
    this.ledger = ledger;
    this.records = store.namespace("sessions");
    this.marks = store.namespace("sessions");
    this.owed = store.namespace("sessions");
  }

  /** The live session behind a cookie value, or undefined when absent, idle too long or too old. */
  async find(cookieValue: string | undefined): Promise<SsoSession | undefined> {
    if (!cookieValue || cookieValue.length > 128) return undefined;
    return this.live(await this.records.get(sessionKey(cookieValue)));
  }

  /**
   * The live session stored under `key` (its user's ledger names it so), with every client it served;
   * undefined when it has ended. For an operator's view: it changes nothing.
   */
  async inspect(key: string): Promise<SsoSession | undefined> {
    const session = this.live(await this.records.get(key));
    return session && this.withRecordedClients(session);
  }

  /**
   * Starts a session for a fresh login; returns the new cookie value. The previous handle, if any, is
   * removed (a new handle at every login: no session fixation). `continues` is the session this login
   * renews for the same user: its sid and clients carry over, so the clients' ID tokens (and a later
   * single sign-out) still name the session they were issued in. The session is filed in its user's
   * ledger before it is written: a session that exists is always one an operator can find.
   */
  async create(auth: Authentication, start: SessionStart = {}): Promise<{ cookie: string; session: SsoSession }> {
    const { previousCookie, continues, address } = start;
    if (previousCookie) await this.destroy(previousCookie);
    const now = this.clock();
    const kept =
      continues && continues.sub === auth.sub ? { sid: continues.sid, clients: continues.clients } : { sid: randomToken(16), clients: [] };
    const session: SsoSession = { ...auth, ...kept, createdAt: now, lastSeenAt: now };
    if (address !== undefined) session.address = address;
    const cookie = randomToken(32);
    const until = now + this.lifetimes.absolute * 1000;
    await this.ledger.record(auth.sub, { kind: "session", key: sessionKey(cookie), sid: session.sid, until });
    await this.save(cookie, session);
    return { cookie, session };
  }

  /**
   * Records that `clientId` got a code in this session and marks the session used now. A session that
   * already lists the client and was marked within the last minute is not written again: SSO authorize
   * requests are the hot path, and idle timeouts are hours.
   */
  async touch(cookieValue: string, session: SsoSession, clientId: string): Promise<SsoSession> {
    const now = this.clock();
    const known = session.clients.includes(clientId);
    if (known && now - session.lastSeenAt < TOUCH_INTERVAL_MS) return session;
    if (!known) await this.recordClient(session.sid, clientId);
    const clients = known ? session.clients : [...session.clients, clientId];
    const updated: SsoSession = { ...session, clients, lastSeenAt: now };
    await this.save(cookieValue, updated);
    return updated;
  }

  /**
   * Ends the session behind a cookie value; returns what it was, with every client it served, for
   * single sign-out. The tombstone goes first, so a touch racing this logout cannot bring it back (see save).
   */
  async destroy(cookieValue: string): Promise<SsoSession | undefined> {
    if (cookieValue.length > 128) return undefined;
    return this.end(sessionKey(cookieValue));
  }

  /**
   * Ends the session stored under `key` (destroy() without the cookie: an operator's sign-out, which
   * knows the session by its user's ledger): the same tombstone first, the same atomic take, so of a
   * logout and a sign-out racing for one session only one gets it.
   */
  async end(key: string): Promise<SsoSession | undefined> {
    await this.marks.set(`ended:${key}`, true, this.lifetimes.absolute * 1000);
    const session = await this.records.take(key);
    return session && this.withRecordedClients(session);
  }

  /**
   * Records that the browser of the session ended under `key` is owed front-channel logout: the next
   * page it loads from the provider with that session's cookie carries the iframes (takeOwedFrontChannel).
   * Kept as long as the cookie could have named a live session.
   */
  async oweFrontChannel(key: string, owed: OwedFrontChannel): Promise<void> {
    await this.owed.set(`frontchannel:${key}`, owed, this.lifetimes.absolute * 1000);
  }

  /** The front-channel logout owed to the browser holding this (dead) cookie, once: the first page to ask shows it. */
  async takeOwedFrontChannel(cookieValue: string | undefined): Promise<OwedFrontChannel | undefined> {
    if (!cookieValue || cookieValue.length > 128) return undefined;
    return this.owed.take(`frontchannel:${sessionKey(cookieValue)}`);
  }

  /** The session if it is still within its idle and absolute lifetimes. */
  private live(session: SsoSession | undefined): SsoSession | undefined {
    if (!session) return undefined;
    const now = this.clock();
    const expired = now - session.lastSeenAt > this.lifetimes.idle * 1000 || now - session.createdAt > this.lifetimes.absolute * 1000;
    return expired ? undefined : session;
  }

  private async withRecordedClients(session: SsoSession): Promise<SsoSession> {
    return { ...session, clients: [...new Set([...session.clients, ...(await this.recordedClients(session.sid))])] };
  }

  /**
   * The session record's client list is read, extended and written back; two clients signing in at
   * once would each write a list without the other. So each client is also recorded on its own, in the
   * first free slot `client:<sid>:<n>` taken with the atomic add, and logout reads the slots up to the
   * first free one. Slots are filled from 0 (an expired one is reused), so they never leave a gap.
   */
  private async recordClient(sid: string, clientId: string): Promise<void> {
    for (let n = 0; n < MAX_CLIENTS_PER_SESSION; n++) {
      const slot = `client:${sid}:${n}`;
      if (await this.marks.add(slot, clientId, this.lifetimes.absolute * 1000)) return;
      if ((await this.marks.get(slot)) === clientId) return;
    }
  }

  private async recordedClients(sid: string): Promise<string[]> {
    const clients: string[] = [];
    for (let n = 0; n < MAX_CLIENTS_PER_SESSION; n++) {
      const clientId = await this.marks.get(`client:${sid}:${n}`);
      if (typeof clientId !== "string") break;
      clients.push(clientId);
    }
    return clients;
  }

  private async save(cookieValue: string, session: SsoSession): Promise<void> {
    // Kept until the earlier of the idle and the absolute end; find() re-checks both.
    const now = this.clock();
    const ttl = Math.min(session.lastSeenAt + this.lifetimes.idle * 1000, session.createdAt + this.lifetimes.absolute * 1000) - now;
    const key = sessionKey(cookieValue);
    await this.records.set(key, session, Math.max(1, ttl));
    // A logout that took the record while this write was on its way left a tombstone first: undo the write.
    if ((await this.marks.get(`ended:${key}`)) !== undefined) await this.records.delete(key);
  }
}
