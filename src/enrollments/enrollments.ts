import type { Clock } from "../clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";

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
  private readonly records: RecordStore<Enrollment>;

  constructor(
    store: Store,
    private readonly clock: Clock,
  ) {
    this.records = store.namespace("enrollments");
  }

  /** The enrollments of one method, for its plugin. */
  forMethod<Data>(method: string): MethodEnrollments<Data> {
    return {
      method,
      get: (sub) => this.get<Data>(method, sub),
      put: (sub, data) => this.put(method, sub, data),
      remove: (sub) => this.remove(method, sub),
    };
  }

  async get<Data>(method: string, sub: string): Promise<Enrollment<Data> | undefined> {
    return (await this.records.get(key(method, sub))) as Enrollment<Data> | undefined;
  }

  /** Creates or replaces the method's record for the user. */
  async put<Data>(method: string, sub: string, data: Data): Promise<Enrollment<Data>> {
    const now = this.clock();
    const existing = await this.records.get(key(method, sub));
    const record: Enrollment<Data> = { method, sub, createdAt: existing?.createdAt ?? now, updatedAt: now, data };
    await this.records.set(key(method, sub), record);
    return record;
  }

  /** Removes the user's enrollment of the method (operator reset, the user removing it); true when one existed. */
  async remove(method: string, sub: string): Promise<boolean> {
    return this.records.delete(key(method, sub));
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
  remove(sub: string): Promise<boolean>;
}

// The sub is an employee number from config, the method an id: neither holds ':' (both patterns say so).
const key = (method: string, sub: string) => `${method}:${sub}`;
