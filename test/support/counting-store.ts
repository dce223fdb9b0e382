import type { RecordKind, RecordStore, Store } from "../../src/stores/store.ts";
import type { RecordKinds } from "../../src/stores/record-kinds.ts";

export const OPERATIONS = ["get", "set", "delete", "take", "add", "increment"] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface StoreCounts {
  /** Calls per operation, all namespaces together. */
  operations: Record<Operation, number>;
  /** Calls per `namespace.operation`, e.g. `sessions.set`. */
  byKind: Record<string, number>;
  /** What writes sent: key plus JSON of the value, for set and add (increment and delete send a key only, counted too). */
  bytesWritten: number;
  /** Bytes written per namespace, e.g. `sessions`. */
  bytesByKind: Record<string, number>;
}

const empty = (): StoreCounts => ({
  operations: Object.fromEntries(OPERATIONS.map((o) => [o, 0])) as Record<Operation, number>,
  byKind: {},
  bytesWritten: 0,
  bytesByKind: {},
});

/**
 * A Store decorator that counts every record operation the provider makes and the bytes it writes:
 * what one flow costs the store (docs/deployment.md's capacity figures come from it). `take()` returns
 * the counts since the last take and starts again from zero.
 */
export class CountingStore implements Store {
  private readonly inner: Store;
  private counts = empty();

  constructor(inner: Store) {
    this.inner = inner;
  }

  get backend() {
    return this.inner.backend;
  }

  take(): StoreCounts {
    const counts = this.counts;
    this.counts = empty();
    return counts;
  }

  declare(kinds: RecordKinds): void {
    this.inner.declare(kinds);
  }

  namespace<T>(kind: RecordKind): RecordStore<T> {
    const records = this.inner.namespace<T>(kind);
    const count = (op: Operation, bytes = 0) => {
      this.counts.operations[op]++;
      this.counts.byKind[`${kind}.${op}`] = (this.counts.byKind[`${kind}.${op}`] ?? 0) + 1;
      this.counts.bytesWritten += bytes;
      if (bytes > 0) this.counts.bytesByKind[kind] = (this.counts.bytesByKind[kind] ?? 0) + bytes;
    };
    const size = (key: string, value?: unknown) =>
      Buffer.byteLength(key) + (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));
    return {
      get: (key) => {
        count("get");
        return records.get(key);
      },
      set: (key, value, ttlMs) => {
        count("set", size(key, value));
        return records.set(key, value, ttlMs);
      },
      delete: (key) => {
        count("delete", size(key));
        return records.delete(key);
      },
      take: (key) => {
        count("take", size(key));
        return records.take(key);
      },
      add: (key, value, ttlMs) => {
        count("add", size(key, value));
        return records.add(key, value, ttlMs);
      },
      increment: (key, ttlMs) => {
        count("increment", size(key));
        return records.increment(key, ttlMs);
      },
    };
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
