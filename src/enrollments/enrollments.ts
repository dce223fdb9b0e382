import type { Clock } from "../time/clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import { StoreUnavailableError } from "../stores/store-unavailable-error.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";

/** One user's enrollment of one method: durable, its `data` owned by the method's plugin. */
export interface Enrollment<Data = unknown> {
  method: string;
  sub: string;
  /** Epoch ms of the first enrollment; kept when the plugin updates its data. */
  createdAt: number;
  /** Epoch ms of the last change. */
  updatedAt: number;
  data: Data;
}

/**
 * The durable enrollments of every user and method (DESIGN "Flows and factor plugins"): one record
 * per (method, sub), whose data the method's plugin defines (a sealed TOTP secret, FIDO2 credentials,
 * trusted-app devices, a confirmed phone number). Lives in the `enrollments` kind, which survives a
 * restart of the embedded store and is shared by every process on Redis or PostgreSQL.
 */
export class Enrollments {
  private readonly store: Store;
  private readonly clock: Clock;
  /** How long a caller waits for a busy record (a test that queues many changes on a busy machine waits longer). */
  private readonly lockWaitMs: number;
  /** Told of every enrollment added, replaced or removed (not of a plugin's updates to its data, such as a signature counter). */
  private readonly audit?: AuditTrail;
  private readonly records: RecordStore<Enrollment>;
  private readonly locks: RecordStore<true>;
  /** Last sign-in per method and user (epoch ms), under `used:<method>:<sub>` in the same durable kind. */
  private readonly uses: RecordStore<number>;

  constructor(store: Store, clock: Clock, lockWaitMs = LOCK_WAIT_MS, audit?: AuditTrail) {
    this.store = store;
    this.clock = clock;
    this.lockWaitMs = lockWaitMs;
    this.audit = audit;
    this.records = store.namespace("enrollments");
    this.locks = store.namespace("locks");
    this.uses = store.namespace("enrollments");
  }

  /** The enrollments of one method, for its plugin. */
  forMethod<Data>(method: string): MethodEnrollments<Data> {
    return {
      method,
      get: (sub) => this.get<Data>(method, sub),
      put: (sub, data) => this.put(method, sub, data),
      update: (sub, change) => this.update(method, sub, change),
      remove: (sub) => this.remove(method, sub),
    };
  }

  async get<Data>(method: string, sub: string): Promise<Enrollment<Data> | undefined> {
    return (await this.records.get(key(method, sub))) as Enrollment<Data> | undefined;
  }

  /** Creates or replaces the method's record for the user. */
  async put<Data>(method: string, sub: string, data: Data): Promise<Enrollment<Data>> {
    const existing = await this.records.get(key(method, sub));
    const record = await this.write(method, sub, data, existing);
    this.audit?.record({ type: "enrollment.changed", sub, method, change: existing ? "replaced" : "added" });
    return record;
  }

  private async write<Data>(method: string, sub: string, data: Data, existing: Enrollment | undefined): Promise<Enrollment<Data>> {
    const now = this.clock();
    const record: Enrollment<Data> = { method, sub, createdAt: existing?.createdAt ?? now, updatedAt: now, data };
    await this.records.set(key(method, sub), record);
    return record;
  }

  /**
   * Reads, changes and writes the user's record as one step among every caller in every process (a
   * lock in the store around it), so two changes at once — two devices enrolled, two logins moving a
   * signature counter — do not lose one. `change` gets the current data (undefined when none) and
   * returns the new data (the same object: no change, nothing written), or undefined to remove the
   * record; what it throws is rethrown.
   */
  async update<Data>(
    method: string,
    sub: string,
    change: (current: Data | undefined) => Data | undefined | Promise<Data | undefined>,
  ): Promise<Enrollment<Data> | undefined> {
    const lock = `enrollment:${key(method, sub)}`;
    await this.acquire(lock);
    try {
      const current = await this.get<Data>(method, sub);
      const next = await change(current?.data);
      if (current && next === current.data) return current; // unchanged: nothing to write
      if (next === undefined) {
        await this.remove(method, sub);
        return undefined;
      }
      // A first record is an enrollment; a change to one (a device added, a counter moved) is the plugin's.
      if (!current) return await this.put(method, sub, next);
      return await this.write(method, sub, next, current);
    } finally {
      await this.locks.delete(lock);
    }
  }

  /** Waits for the lock (held at most LOCK_TTL_MS, so a crashed holder cannot block it for long). */
  private async acquire(lock: string): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    for (let delay = 5; !(await this.locks.add(lock, true, LOCK_TTL_MS)); delay = Math.min(delay * 2, 100)) {
      // Answered like an outage (503 temporarily_unavailable): the user can simply try again.
      if (Date.now() > deadline)
        throw new StoreUnavailableError(this.store.backend, { cause: new Error(`enrollment record busy: ${lock}`) });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** Removes the user's enrollment of the method (operator reset, the user removing it); true when one existed. */
  async remove(method: string, sub: string): Promise<boolean> {
    await this.uses.delete(usedKey(method, sub));
    const removed = await this.records.delete(key(method, sub));
    if (removed) this.audit?.record({ type: "enrollment.changed", sub, method, change: "removed" });
    return removed;
  }

  /**
   * Records that the user just signed in with these methods (for "last used" on the account page). One
   * write per method, kept apart from the plugin's record so it never takes the record's lock or
   * rewrites its data; the caller does not wait for it.
   */
  async markUsed(sub: string, methods: Iterable<string>): Promise<void> {
    const now = this.clock();
    await Promise.all([...methods].map((method) => this.uses.set(usedKey(method, sub), now)));
  }

  /** When the user last signed in with the method (epoch ms), if recorded since markUsed existed. */
  async lastUsed(method: string, sub: string): Promise<number | undefined> {
    return this.uses.get(usedKey(method, sub));
  }

  /** The user's enrollments among `methods` (the configured ones), in that order. */
  async list(sub: string, methods: Iterable<string>): Promise<Enrollment[]> {
    const found: Enrollment[] = [];
    for (const method of methods) {
      const record = await this.get(method, sub);
      if (record) found.push(record);
    }
    return found;
  }
}

/** One method's view of the enrollments: what a plugin's actors get. */
export interface MethodEnrollments<Data = unknown> {
  readonly method: string;
  get(sub: string): Promise<Enrollment<Data> | undefined>;
  put(sub: string, data: Data): Promise<Enrollment<Data>>;
  /** Read-modify-write as one step across processes (see Enrollments.update). */
  update(
    sub: string,
    change: (current: Data | undefined) => Data | undefined | Promise<Data | undefined>,
  ): Promise<Enrollment<Data> | undefined>;
  remove(sub: string): Promise<boolean>;
}

/** A lock outlives no holder by more than this; a change of one record takes milliseconds. */
const LOCK_TTL_MS = 5_000;
/** How long a caller waits for a busy record before giving up (a 503 to the user). */
const LOCK_WAIT_MS = 3_000;

// The sub is an employee number from config, the method an id: neither holds ':' (both patterns say so).
const key = (method: string, sub: string) => `${method}:${sub}`;
// Two colons: never the key of a record.
const usedKey = (method: string, sub: string) => `used:${key(method, sub)}`;
