import { setTimeout as sleep } from "node:timers/promises";
import type { PhoneProgressEvent } from "../../../flows/custom-login/phone-progress.machine.ts";
import type { ScanPlan, ScanSession } from "./scan-session.ts";
import { advancePc, advancePhone, expireIfDue, initialProgress, type Advanced } from "./scan-progress.ts";
import { constantTimeEqual, randomToken, storeKeyHash, type Clock, type RecordStore, type Store } from "../../plugin-contract/index.ts";

/** 256-bit session ids and binding secrets (the issue asks for at least 128 bits). */
const TOKEN_BYTES = 32;
/** A record outlives its deadline a little, so that a late poll learns "expired" rather than nothing. */
const GRACE_MS = 60_000;
/** Concurrent writers of one session (a poll never writes; the phone and the PC side rarely meet). */
const WRITE_ATTEMPTS = 8;

export interface ScanSessionTimes {
  qrLifetimeMs: number;
  operationLifetimeMs: number;
}

/**
 * The outcome of a change: applied, refused by the machines (`rejected`), no such live session, or
 * `contended`: other writers kept taking the next version (a caller hammering one session), so this
 * one gave up — the caller's problem to retry, never a failure of the provider.
 */
export type ScanChange =
  | { outcome: "applied"; session: ScanSession }
  | { outcome: "rejected"; session: ScanSession }
  | { outcome: "missing" }
  | { outcome: "contended" };

/**
 * The scan sessions in the shared store, so that any provider process can serve the page's poll, the
 * phone's scan, its status writes and the PC login. Every change claims the session's next version
 * with an atomic `add` before it writes, so two writers never both apply a step to the same state
 * (and the PC login, the last step, happens once).
 */
export class ScanSessions {
  private readonly clock: Clock;
  private readonly records: RecordStore<ScanSession>;
  private readonly claims: RecordStore<true>;

  constructor(store: Store, clock: Clock) {
    this.clock = clock;
    this.records = store.namespace("customLoginScans");
    this.claims = store.namespace("customLoginScans");
  }

  /** A new session for this plan; the binding secret is returned once, to the page that loads the script. */
  async create(plan: ScanPlan, lang: string, times: ScanSessionTimes): Promise<{ session: ScanSession; binding: string }> {
    const binding = randomToken(TOKEN_BYTES);
    const now = this.clock();
    const session: ScanSession = {
      id: randomToken(TOKEN_BYTES),
      bindingHash: storeKeyHash(binding),
      plan,
      lang,
      createdAt: now,
      qrExpiresAt: now + times.qrLifetimeMs,
      ...initialProgress(),
      version: 0,
    };
    await this.records.set(sessionKey(session.id), session, times.qrLifetimeMs + GRACE_MS);
    return { session, binding };
  }

  /** The session as it is now (past its deadline: expired), or undefined. */
  async find(id: string): Promise<ScanSession | undefined> {
    if (!isToken(id)) return undefined;
    const session = await this.records.get(sessionKey(id));
    return session && expireIfDue(session, this.clock());
  }

  /** Whether `binding` is the secret of this session (in constant time). */
  isBound(session: ScanSession, binding: string | undefined): boolean {
    return binding !== undefined && constantTimeEqual(storeKeyHash(binding), session.bindingHash);
  }

  /** A phone-side step: the scan (which starts the operation's lifetime) or a status write. */
  phone(id: string, event: PhoneProgressEvent, times?: ScanSessionTimes): Promise<ScanChange> {
    return this.change(id, (session) => {
      const advanced = advancePhone(session, event);
      if (advanced.accepted && event.type === "SCAN" && times)
        advanced.session.operationExpiresAt = this.clock() + times.operationLifetimeMs;
      return advanced;
    });
  }

  /** The PC side's login: accepted once, after the phone finished, for the bound browser only. */
  logIn(id: string, binding: string | undefined): Promise<ScanChange> {
    return this.change(id, (session) => advancePc(session, { type: "LOG_IN", bound: this.isBound(session, binding) }));
  }

  /** Ends a session (a renewed QR replaces it). */
  async end(id: string): Promise<void> {
    await this.records.delete(sessionKey(id));
  }

  private async change(id: string, apply: (session: ScanSession) => Advanced): Promise<ScanChange> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const current = await this.find(id);
      if (!current) return { outcome: "missing" };
      const { accepted, session } = apply(current);
      if (!accepted) return { outcome: "rejected", session: current };
      const keepMs = Math.max(session.qrExpiresAt, session.operationExpiresAt ?? 0) + GRACE_MS - this.clock();
      if (await this.claims.add(versionKey(id, session.version), true, keepMs)) {
        await this.records.set(sessionKey(id), session, keepMs);
        return { outcome: "applied", session };
      }
      // Another writer took this version: read its result and decide again.
      await sleep(5 * (attempt + 1));
    }
    return { outcome: "contended" };
  }
}

const sessionKey = (id: string) => `session:${id}`;
const versionKey = (id: string, version: number) => `version:${id}:${version}`;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
function isToken(value: string): boolean {
  return TOKEN.test(value);
}
