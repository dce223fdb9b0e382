import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Keyv } from "keyv";
import { EmbeddedMap } from "./embedded-map.ts";
import { Journal } from "./embedded-journal.ts";
import { KeyvRecordStore } from "./keyv-record-store.ts";
import { MemoryRecordStore } from "./memory-record-store.ts";
import { CORE_RECORD_KINDS, type RecordKind, type RecordStore, type Store } from "./store.ts";
import { RecordKindTable, type RecordKinds, type RecordTraits } from "./record-kinds.ts";
import {
  createOperationRunner,
  silentStoreLogger,
  type OperationObserver,
  type OperationRunner,
  type StoreLogger,
} from "./store-operation.ts";
import { StoreUnavailableError } from "./store-unavailable-error.ts";
import { lockDirectory } from "./directory-lock.ts";

export interface EmbeddedStoreOptions {
  /** Where durable kinds keep their journals (`<dir>/<kind>.jsonl`); created with mode 0700. */
  dir: string;
  logger?: StoreLogger;
  /** Told of every operation (latency, failure): the metrics' hook. */
  observe?: OperationObserver | undefined;
  /** How often expired entries are evicted from memory. Default 30 s. */
  sweepIntervalMs?: number;
}

/** Directories opened by this process: a second store on the same journals would corrupt them. */
const openDirs = new Set<string>();

/**
 * The default backend: everything in process memory, durable kinds (record-kinds.ts) also in an
 * append-only journal per kind under `dir`, so they survive a restart; the other kinds are lost with it.
 *
 * One process, one store per directory: two instances on the same directory (in one process or in two)
 * are not supported — their journals would interleave and each would miss the other's writes. This
 * process refuses a second open, and a LOCK file makes another process refuse too (directory-lock.ts);
 * use Redis or PostgreSQL to run more than one provider.
 */
export class EmbeddedStore implements Store {
  readonly backend = "embedded";
  readonly #dir: string;
  readonly #kinds = new RecordKindTable(CORE_RECORD_KINDS);
  readonly #maps = new Map<RecordKind, EmbeddedMap>();
  readonly #logger: StoreLogger;
  readonly #namespaces = new Map<RecordKind, RecordStore<unknown>>();
  readonly #run: OperationRunner;
  readonly #sweeper: NodeJS.Timeout;
  #sweeping = false;
  readonly #unlock: () => void;
  #closed = false;

  constructor(options: EmbeddedStoreOptions) {
    const logger = options.logger ?? silentStoreLogger;
    this.#logger = logger;
    this.#dir = resolve(options.dir);
    if (openDirs.has(this.#dir)) throw new Error(`an embedded store is already open on ${this.#dir}`);
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    // Before the journals are read (and compacted): a second process must not rewrite them under the first.
    this.#unlock = lockDirectory(this.#dir);
    try {
      this.#openKinds([...this.#kinds.entries()]);
    } catch (error) {
      for (const map of this.#maps.values()) map.close();
      this.#unlock();
      throw error;
    }
    openDirs.add(this.#dir);
    this.#run = createOperationRunner({ backend: "embedded", logger, observe: options.observe, isClosed: () => this.#closed });
    // A plain Map grows forever: evict what nobody reads again. unref'd so it never keeps the process alive.
    this.#sweeper = setInterval(() => this.#sweep(), options.sweepIntervalMs ?? 30_000).unref();
  }

  declare(kinds: RecordKinds): void {
    // A durable kind's journal is read now, as the core's were at the start.
    this.#openKinds(this.#kinds.add(kinds));
  }

  #openKinds(kinds: [string, RecordTraits][]): void {
    const now = Date.now();
    for (const [kind, traits] of kinds) {
      if (!traits.durable) {
        this.#maps.set(kind, new EmbeddedMap(new Map(), undefined));
        continue;
      }
      const { journal, entries, skippedLines } = Journal.open(join(this.#dir, `${kind}.jsonl`), now);
      if (skippedLines > 0)
        this.#logger.warn({ backend: "embedded", kind, skippedLines }, "embedded store skipped unreadable journal lines");
      this.#maps.set(kind, new EmbeddedMap(entries, journal));
    }
  }

  namespace<T>(kind: RecordKind): RecordStore<T> {
    let namespace = this.#namespaces.get(kind);
    if (namespace === undefined) {
      const map = this.#map(kind);
      const traits = this.#kinds.traits(kind);
      if (traits.durable) {
        // No prefix from Keyv: each kind has its own map, so the raw key is the key.
        const keyv = new Keyv(map, { namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
        namespace = new KeyvRecordStore<unknown>({ kind, keyv, atomic: map.atomic, rawKey: (key) => key, run: this.#run });
      } else {
        namespace = new MemoryRecordStore<unknown>(kind, map, this.#run, traits.immutable === true);
      }
      this.#namespaces.set(kind, namespace);
    }
    return namespace as RecordStore<T>;
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new StoreUnavailableError("embedded", { cause: new Error("the store is closed") });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    for (const map of this.#maps.values()) map.close();
    this.#unlock();
    openDirs.delete(this.#dir);
  }

  /** Test hook: entries held in memory for `kind`, expired or not yet evicted included. */
  entryCount(kind: RecordKind): number {
    return this.#map(kind).size;
  }

  #map(kind: RecordKind): EmbeddedMap {
    const map = this.#maps.get(kind);
    if (map === undefined) throw new Error(`unknown record kind: ${kind}`);
    return map;
  }

  /**
   * Evicts expired entries in slices of SWEEP_SLICE entries of one kind, a slice per turn of the event loop: a map of
   * millions (redemption markers live as long as their access token) would otherwise stall every request
   * for a tenth of a second each time.
   */
  #sweep(): void {
    if (this.#sweeping) return;
    this.#sweeping = true;
    const pending = [...this.#maps.values()];
    const slice = () => {
      if (this.#closed) return;
      if (pending[0]!.sweepSlice(Date.now(), SWEEP_SLICE)) pending.shift();
      if (pending.length === 0) this.#sweeping = false;
      else setImmediate(slice);
    };
    slice();
  }
}

/** Entries looked at per turn of the event loop: ~1 ms of work. */
const SWEEP_SLICE = 20_000;
