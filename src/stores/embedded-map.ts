import type { AtomicOps } from "./keyv-record-store.ts";
import type { EmbeddedEntry, Journal } from "./embedded-journal.ts";

/**
 * One namespace of the embedded store: a Keyv storage adapter over a Map of serialized payloads that
 * knows when each entry expires (so it can evict without being read), plus the atomic operations done as
 * synchronous Map operations — atomic within the process by construction, since nothing else runs between
 * the read and the write. For durable kinds every change goes to the journal first, then to the Map, so a
 * failed write leaves memory as it was.
 */
export class EmbeddedMap {
  /** Keyv reads these; this adapter has no options of its own. */
  readonly opts = { dialect: "embedded" };
  namespace: string | undefined;
  readonly #entries: Map<string, EmbeddedEntry>;
  readonly #journal: Journal | undefined;
  /** Where the sweep in slices (sweepSlice) goes on; undefined between passes. */
  #sweepCursor: Iterator<[string, EmbeddedEntry]> | undefined;

  constructor(entries: Map<string, EmbeddedEntry>, journal: Journal | undefined) {
    this.#entries = entries;
    this.#journal = journal;
  }

  /** Keyv subscribes to adapter errors; this adapter throws instead of emitting. */
  on(): this {
    return this;
  }

  async get(key: string): Promise<string | undefined> {
    return this.readEntry(key)?.payload;
  }

  async set(key: string, payload: string, ttlMs?: number): Promise<void> {
    this.writeEntry(key, { payload, expiresAt: ttlMs === undefined ? undefined : Date.now() + ttlMs });
  }

  /** Keyv calls this only for a value it read as expired: remove it only if it still is (see KeyvRecordStoreParts). */
  async delete(key: string): Promise<boolean> {
    const entry = this.#entries.get(key);
    if (entry === undefined || !isExpired(entry, Date.now())) return false;
    return this.#entries.delete(key);
  }

  async clear(): Promise<void> {
    this.#entries.clear();
    this.#journal?.compact(this.#entries);
  }

  /** Keyv's adapter face of the atomic operations below (the durable kinds go through Keyv). */
  readonly atomic: AtomicOps = {
    take: async (key) => this.takeEntry(key)?.payload,
    add: async (key, payload, ttlMs, now) => this.addEntry(key, { payload, expiresAt: now + ttlMs }, now),
    increment: async (key, ttlMs, now) => this.increment(key, ttlMs, now),
  };

  /*
   * The operations themselves are synchronous: the memory-only kinds (memory-record-store.ts) call them
   * without a promise per layer, which the browser flows' hot path measurably paid (docs/performance.md).
   */

  /** A live entry. */
  readEntry(key: string): EmbeddedEntry | undefined {
    return this.#live(key, Date.now());
  }

  writeEntry(key: string, entry: EmbeddedEntry): void {
    this.#write(key, entry);
  }

  /** The live entry, removed. */
  takeEntry(key: string): EmbeddedEntry | undefined {
    const entry = this.#live(key, Date.now());
    if (entry === undefined) return undefined;
    this.#journal?.recordRemoval(key);
    this.#entries.delete(key);
    return entry;
  }

  /** Writes `entry` only when the key is absent or expired before `now`; true when written. */
  addEntry(key: string, entry: EmbeddedEntry, now: number): boolean {
    if (this.#live(key, now) !== undefined) return false;
    this.#write(key, entry);
    return true;
  }

  /** See AtomicOps.increment. */
  increment(key: string, ttlMs: number, now: number): number {
    const entry = this.#live(key, now);
    const counter = entry === undefined ? undefined : (JSON.parse(entry.payload) as { value: number; expires?: number });
    const count = counter === undefined ? 1 : counter.value + 1;
    const expires = counter === undefined ? now + ttlMs : counter.expires;
    // Keyv's payload format, so that `get` reads the count; the expiry is kept, not extended.
    this.#write(key, { payload: JSON.stringify({ value: count, expires }), expiresAt: entry?.expiresAt ?? expires });
    return count;
  }

  /** Drop every expired entry. Not journaled: the journal drops expired entries when it is compacted. */
  sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (isExpired(entry, now)) this.#entries.delete(key);
  }

  /**
   * One slice of a sweep: looks at up to `budget` entries from where the last slice stopped and drops the
   * expired ones. True when the pass has reached the end. A Map iterator stays valid across deletions and
   * sees entries added meanwhile, so a pass in slices misses nothing that was there when it began.
   */
  sweepSlice(now: number, budget: number): boolean {
    this.#sweepCursor ??= this.#entries.entries();
    for (let seen = 0; seen < budget; seen++) {
      const next = this.#sweepCursor.next();
      if (next.done) {
        this.#sweepCursor = undefined;
        return true;
      }
      const [key, entry] = next.value;
      if (isExpired(entry, now)) this.#entries.delete(key);
    }
    return false;
  }

  /** Entries held in memory, expired or not (a test hook for eviction). */
  get size(): number {
    return this.#entries.size;
  }

  close(): void {
    this.#journal?.close();
  }

  #live(key: string, now: number): EmbeddedEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (isExpired(entry, now)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #write(key: string, entry: EmbeddedEntry): void {
    this.#journal?.recordSet(key, entry);
    this.#entries.set(key, entry);
    if (this.#journal?.needsCompaction(this.#entries.size)) {
      this.sweep(Date.now());
      try {
        this.#journal.compact(this.#entries);
      } catch {
        // The write above is journaled; a failed compaction only leaves a longer file, retried later.
      }
    }
  }
}

function isExpired(entry: EmbeddedEntry, now: number): boolean {
  return entry.expiresAt !== undefined && entry.expiresAt < now;
}
