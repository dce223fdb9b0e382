import type { Keyv } from "keyv";
import type { RecordKind, RecordStore } from "./store.ts";
import type { OperationRunner } from "./store-operation.ts";

/**
 * The operations Keyv cannot do atomically, written per backend on the raw client. They work on the raw key
 * (exactly the key the Keyv adapter reads and writes) and on Keyv's serialized payload
 * `{"value":…,"expires":<epoch ms>}`, so that values written by one path are read by the other.
 */
export interface AtomicOps {
  /** Remove the raw key in one step and return its payload (expired or not), or undefined when absent. */
  take(rawKey: string): Promise<string | undefined>;
  /** Write `payload` only when the key is absent or its payload expired before `now`; true when written. */
  add(rawKey: string, payload: string, ttlMs: number, now: number): Promise<boolean>;
  /**
   * Add 1 to the counter stored as the payload `{"value":<count>,"expires":…}` (so `get` reads the count),
   * keeping its expiry; when absent or expired before `now`, write count 1 expiring at `now + ttlMs`.
   */
  increment(rawKey: string, ttlMs: number, now: number): Promise<number>;
}

export interface KeyvRecordStoreParts {
  kind: RecordKind;
  /**
   * A Keyv that adds no prefix of its own (`namespace: undefined`, `useKeyPrefix: false`), whose adapter
   * adds none either, and whose adapter's `delete()` only removes values that have expired: Keyv calls it
   * after reading an expired value, and an unconditional delete there could remove a fresh value that
   * another caller `add`ed in between.
   */
  keyv: Keyv;
  atomic: AtomicOps;
  /** The key as stored by the backend, e.g. `portcullis:codes:<key>`. */
  rawKey: (key: string) => string;
  run: OperationRunner;
  /** Where a backend makes writes durable before they are answered (Redis WAIT); absent where a write is durable once done. */
  durability?: Durability;
}

/** How a backend whose writes can run and yet not be acknowledged as durable (Redis with replicas) makes them so. */
export interface Durability {
  /** Runs after each write, inside the same operation: throws when the writes so far are not durable. */
  confirm(): Promise<void>;
  /**
   * Writes `payload` back under `rawKey` unless the key has been written since (SET NX), with `ttlMs` left
   * of its life (undefined: it never expires). For a take whose removal `confirm` could not make durable.
   */
  putBack(rawKey: string, payload: string, ttlMs: number | undefined): Promise<void>;
}

/**
 * A `RecordStore` on Keyv (get/set) plus the backend's atomic operations (take/add/increment; delete is a
 * take, so exactly one of many concurrent deleters is told it removed the value).
 */
export class KeyvRecordStore<T> implements RecordStore<T> {
  readonly #parts: KeyvRecordStoreParts;

  constructor(parts: KeyvRecordStoreParts) {
    this.#parts = parts;
  }

  async get(key: string): Promise<T | undefined> {
    const { keyv, kind, rawKey, run } = this.#parts;
    const raw = rawKey(key);
    return run("get", kind, () => keyv.get<T>(raw));
  }

  async set(key: string, value: T, ttlMs?: number): Promise<void> {
    const { keyv, kind, rawKey, run } = this.#parts;
    const raw = rawKey(key);
    // Keyv reads a TTL of 0 as "never expires"; refuse it rather than keep a value forever by accident.
    const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
    await run("set", kind, async () => {
      await keyv.set(raw, value, ttl);
      await this.#parts.durability?.confirm();
    });
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#take("delete", key)) !== undefined;
  }

  async take(key: string): Promise<T | undefined> {
    return (await this.#take("take", key))?.value;
  }

  async add(key: string, value: T, ttlMs: number): Promise<boolean> {
    const { keyv, kind, atomic, rawKey, run } = this.#parts;
    const raw = rawKey(key);
    const ttl = checkTtl(ttlMs);
    return run("add", kind, async () => {
      const now = Date.now();
      const payload = await keyv.serialize!({ value, expires: now + ttl });
      const added = await atomic.add(raw, payload, ttl, now);
      if (added) await this.#parts.durability?.confirm();
      return added;
    });
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const { kind, atomic, rawKey, run } = this.#parts;
    const raw = rawKey(key);
    const ttl = checkTtl(ttlMs);
    return run("increment", kind, async () => {
      const count = await atomic.increment(raw, ttl, Date.now());
      await this.#parts.durability?.confirm();
      return count;
    });
  }

  /** Resolves to `{ value }` when a live value was removed (the value itself may be undefined or null). */
  async #take(op: string, key: string): Promise<{ value: T } | undefined> {
    const { keyv, kind, atomic, rawKey, run } = this.#parts;
    const raw = rawKey(key);
    return run(op, kind, async () => {
      const payload = await atomic.take(raw);
      if (payload === undefined) return undefined;
      const data = await keyv.deserialize!<T>(payload);
      const expires = typeof data?.expires === "number" ? data.expires : undefined;
      // A removal must survive a failover too: a spent refresh token that came back could be spent twice.
      await this.#confirmTake(raw, payload, expires);
      // Same rule as Keyv's get: expired once `now` is past `expires`.
      if (!data || (expires !== undefined && Date.now() > expires)) return undefined;
      return { value: data.value as T };
    });
  }

  /**
   * A take that cannot be made durable fails, and then it must not have happened: the value goes back
   * (unless something was written under the key since) before the failure is answered. Otherwise the
   * caller, told "unavailable", would find the value gone when it tries again: a client's refresh token
   * lost to a replica that lagged for half a second. The put-back is best effort: when the primary is gone
   * too, what the replica has decides, as for any write in flight (docs/decisions.md).
   */
  async #confirmTake(raw: string, payload: string, expires: number | undefined): Promise<void> {
    const durability = this.#parts.durability;
    if (durability === undefined) return;
    try {
      await durability.confirm();
    } catch (error) {
      const ttl = expires === undefined ? undefined : Math.ceil(expires - Date.now());
      if (ttl === undefined || ttl > 0) await durability.putBack(raw, payload, ttl).catch(() => {});
      throw error;
    }
  }
}

/** TTLs are whole milliseconds (Redis PX takes integers), positive and finite. */
export function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`a store TTL must be a positive number of milliseconds, got ${ttlMs}`);
  return Math.ceil(ttlMs);
}
