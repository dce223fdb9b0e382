import type { EmbeddedMap } from "./embedded-map.ts";
import { checkTtl } from "./keyv-record-store.ts";
import type { RecordKind, RecordStore } from "./store.ts";
import type { OperationRunner } from "./store-operation.ts";

interface Payload {
  value?: unknown;
  /** Epoch ms, as in Keyv's payload format (which EmbeddedMap's atomic increment also writes). */
  expires?: number;
}

/**
 * A record kind of the embedded store that lives only in memory (codes, sessions, interactions, ...),
 * read and written straight on its EmbeddedMap with plain JSON. These kinds carry the browser flows'
 * hot path, where going through Keyv (hooks, its serializer, a promise per layer) was a measurable part
 * of every request (docs/performance.md). Its operations are synchronous Map operations, run without a
 * promise of their own (OperationRunner takes synchronous work). Durable kinds stay on Keyv, whose
 * payloads their journals hold.
 */
export class MemoryRecordStore<T> implements RecordStore<T> {
  constructor(
    private readonly kind: RecordKind,
    private readonly map: EmbeddedMap,
    private readonly run: OperationRunner,
  ) {}

  get(key: string): Promise<T | undefined> {
    return this.run("get", this.kind, () => live(this.map.read(key))?.value as T | undefined);
  }

  set(key: string, value: T, ttlMs?: number): Promise<void> {
    return withTtl(ttlMs, (ttl) => this.run("set", this.kind, () => this.map.write(key, encode(value, ttl === undefined ? undefined : Date.now() + ttl), ttl)));
  }

  delete(key: string): Promise<boolean> {
    return this.run("delete", this.kind, () => live(this.map.take(key)) !== undefined);
  }

  take(key: string): Promise<T | undefined> {
    return this.run("take", this.kind, () => live(this.map.take(key))?.value as T | undefined);
  }

  add(key: string, value: T, ttlMs: number): Promise<boolean> {
    return withTtl(ttlMs, (ttl) =>
      this.run("add", this.kind, () => {
        const now = Date.now();
        return this.map.add(key, encode(value, now + ttl!), ttl!, now);
      }),
    );
  }

  increment(key: string, ttlMs: number): Promise<number> {
    return withTtl(ttlMs, (ttl) => this.run("increment", this.kind, () => this.map.increment(key, ttl!, Date.now())));
  }
}

/** A TTL checked before the operation runs: a bad one is the caller's bug (a RangeError), not a store outage. */
function withTtl<R>(ttlMs: number | undefined, operation: (ttl: number | undefined) => Promise<R>): Promise<R> {
  let ttl: number | undefined;
  try {
    ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
  } catch (error) {
    return Promise.reject(error);
  }
  return operation(ttl);
}

function encode(value: unknown, expires: number | undefined): string {
  return JSON.stringify({ value, expires });
}

/** The payload when present and not past its `expires` (the rule Keyv applies on read). */
function live(text: string | undefined): Payload | undefined {
  if (text === undefined) return undefined;
  const payload = JSON.parse(text) as Payload;
  return typeof payload.expires === "number" && Date.now() > payload.expires ? undefined : payload;
}
