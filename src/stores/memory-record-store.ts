import type { EmbeddedMap } from "./embedded-map.ts";
import type { EmbeddedEntry } from "./embedded-journal.ts";
import { checkTtl } from "./keyv-record-store.ts";
import type { RecordKind, RecordStore } from "./store.ts";
import type { OperationRunner } from "./store-operation.ts";
import { deepFreeze } from "./deep-freeze.ts";

interface Payload {
  value?: unknown;
  /** Epoch ms, as in Keyv's payload format (which EmbeddedMap's atomic increment also writes). */
  expires?: number;
}

/**
 * A record kind of the embedded store that lives only in memory (codes, sessions, interactions, ...),
 * read and written straight on its EmbeddedMap. These kinds carry the browser flows' hot path, where
 * going through Keyv (hooks, its serializer, a promise per layer) was a measurable part of every request
 * (docs/performance.md). Its operations are synchronous Map operations, run without a promise of their
 * own (OperationRunner takes synchronous work). Durable kinds stay on Keyv, whose payloads their journals
 * hold.
 *
 * Values are kept as Keyv's JSON payload, so every read is a fresh copy, as from Redis or PostgreSQL;
 * an immutable kind's (record-kinds.ts) by reference instead, deep-frozen when stored: no serialisation
 * at all on the SSO code flow's path, where JSON was the largest part of the store's cost. A caller that
 * broke that contract would get a TypeError, never another caller's half-changed value.
 */
export class MemoryRecordStore<T> implements RecordStore<T> {
  private readonly kind: RecordKind;
  private readonly map: EmbeddedMap;
  private readonly run: OperationRunner;
  readonly #entry: (value: unknown, expiresAt: number | undefined) => EmbeddedEntry;

  constructor(kind: RecordKind, map: EmbeddedMap, run: OperationRunner, immutable: boolean) {
    this.kind = kind;
    this.map = map;
    this.run = run;
    this.#entry = immutable ? sharedEntry : jsonEntry;
  }

  get(key: string): Promise<T | undefined> {
    return this.run("get", this.kind, () => payloadValue(this.map.readEntry(key)) as T | undefined);
  }

  set(key: string, value: T, ttlMs?: number): Promise<void> {
    return withTtl(ttlMs, (ttl) =>
      this.run("set", this.kind, () => this.map.writeEntry(key, this.#entry(value, ttl === undefined ? undefined : Date.now() + ttl))),
    );
  }

  delete(key: string): Promise<boolean> {
    return this.run("delete", this.kind, () => this.map.takeEntry(key) !== undefined);
  }

  take(key: string): Promise<T | undefined> {
    return this.run("take", this.kind, () => payloadValue(this.map.takeEntry(key)) as T | undefined);
  }

  add(key: string, value: T, ttlMs: number): Promise<boolean> {
    return withTtl(ttlMs, (ttl) =>
      this.run("add", this.kind, () => {
        const now = Date.now();
        return this.map.addEntry(key, this.#entry(value, now + ttl!), now);
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

function jsonEntry(value: unknown, expiresAt: number | undefined): EmbeddedEntry {
  return { payload: JSON.stringify({ value, expires: expiresAt }), expiresAt };
}

function sharedEntry(value: unknown, expiresAt: number | undefined): EmbeddedEntry {
  return { payload: "", expiresAt, shared: deepFreeze(value) };
}

/**
 * The value of a live entry (EmbeddedMap has checked its expiry): a shared one as it is, else from
 * its JSON payload (which a counter written by `increment` has in either keeping).
 */
function payloadValue(entry: EmbeddedEntry | undefined): unknown {
  if (entry === undefined) return undefined;
  if (entry.payload === "") return entry.shared;
  return (JSON.parse(entry.payload) as Payload).value;
}
