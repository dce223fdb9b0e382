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
 * of every request (docs/performance.md). Durable kinds stay on Keyv, whose payloads their journals hold.
 */
export class MemoryRecordStore<T> implements RecordStore<T> {
  constructor(
    private readonly kind: RecordKind,
    private readonly map: EmbeddedMap,
    private readonly run: OperationRunner,
  ) {}

  get(key: string): Promise<T | undefined> {
    return this.run("get", this.kind, async () => live(await this.map.get(key))?.value as T | undefined);
  }

  async set(key: string, value: T, ttlMs?: number): Promise<void> {
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    return this.run("set", this.kind, () => this.map.set(key, encode(value, ttl === undefined ? undefined : Date.now() + ttl), ttl));
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#take("delete", key)) !== undefined;
  }

  async take(key: string): Promise<T | undefined> {
    return (await this.#take("take", key))?.value as T | undefined;
  }

  async add(key: string, value: T, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.run("add", this.kind, () => {
      const now = Date.now();
      return this.map.atomic.add(key, encode(value, now + ttl), ttl, now);
    });
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const ttl = checkTtl(ttlMs);
    return this.run("increment", this.kind, () => this.map.atomic.increment(key, ttl, Date.now()));
  }

  #take(op: string, key: string): Promise<Payload | undefined> {
    return this.run(op, this.kind, async () => live(await this.map.atomic.take(key)));
  }
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
