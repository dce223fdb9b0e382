import type { RecordKind, RecordStore, Store } from "../../src/stores/store.ts";
import type { RecordKinds } from "../../src/stores/record-kinds.ts";

/**
 * A Store decorator whose writes to one record kind can be made to throw, to see how a route answers a
 * failure it did not plan for (a non-store error) or a store outage (StoreUnavailableError) at exactly
 * that step, while everything before it ran on the real store. Reads always pass through.
 */
export class FaultyStore implements Store {
  private readonly inner: Store;
  private broken: { kind: RecordKind; error: Error } | undefined;

  constructor(inner: Store) {
    this.inner = inner;
  }

  get backend() {
    return this.inner.backend;
  }

  /** From now on every write to `kind` rejects with `error`, until mend(). */
  breakWrites(kind: RecordKind, error: Error): void {
    this.broken = { kind, error };
  }

  mend(): void {
    this.broken = undefined;
  }

  declare(kinds: RecordKinds): void {
    this.inner.declare(kinds);
  }

  namespace<T>(kind: RecordKind): RecordStore<T> {
    const records = this.inner.namespace<T>(kind);
    // Checked at each call, so a namespace taken at start-up breaks too.
    const write = <R>(run: () => Promise<R>): Promise<R> => (this.broken?.kind === kind ? Promise.reject(this.broken.error) : run());
    return {
      get: (key) => records.get(key),
      set: (key, value, ttlMs) => write(() => records.set(key, value, ttlMs)),
      delete: (key) => write(() => records.delete(key)),
      take: (key) => write(() => records.take(key)),
      add: (key, value, ttlMs) => write(() => records.add(key, value, ttlMs)),
      increment: (key, ttlMs) => write(() => records.increment(key, ttlMs)),
    };
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
