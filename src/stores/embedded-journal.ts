import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * One entry of an embedded namespace: Keyv's serialized payload and when the entry expires (epoch ms).
 * `shared`: a memory-only namespace's value kept by reference, frozen (memory-record-store.ts); its
 * payload is then "". Never journaled: journals hold durable namespaces, whose payloads are strings.
 */
export interface EmbeddedEntry {
  payload: string;
  expiresAt: number | undefined;
  shared?: unknown;
}

/** A journal line: a write (`v`, optional `e`) or a removal (only `k`). */
type JournalRecord = { k: string; v?: string; e?: number };

/**
 * The append-only file that keeps one durable namespace of the embedded store across restarts
 * (`<dir>/<kind>.jsonl`, one JSON record per line).
 *
 * Every change is written with a synchronous `write(2)` before the in-memory map changes, so a crash of the
 * process loses nothing that was acknowledged. There is no fsync per write: a power loss can lose the last
 * writes (the compaction below does fsync). Expiry is an absolute time, so expired entries need no removal
 * record: they are dropped when the file is compacted — on open, and whenever the file has grown well past
 * the live data.
 */
export class Journal {
  readonly #path: string;
  #fd: number;
  #appendsSinceCompaction = 0;

  private constructor(path: string, fd: number) {
    this.#path = path;
    this.#fd = fd;
  }

  /** Replay the file into a map, compact it, and open it for appending. Skipped lines are counted, not fatal. */
  static open(path: string, now: number): { journal: Journal; entries: Map<string, EmbeddedEntry>; skippedLines: number } {
    const { entries, skippedLines } = replay(path, now);
    writeCompacted(path, entries);
    return { journal: new Journal(path, openSync(path, "a", 0o600)), entries, skippedLines };
  }

  recordSet(key: string, entry: EmbeddedEntry): void {
    this.#append({ k: key, v: entry.payload, e: entry.expiresAt });
  }

  recordRemoval(key: string): void {
    this.#append({ k: key });
  }

  /** True when the file holds many more records than `liveEntries`, so compacting is worth its cost. */
  needsCompaction(liveEntries: number): boolean {
    return this.#appendsSinceCompaction > Math.max(1000, 2 * liveEntries);
  }

  /** Rewrite the file with just `entries`, atomically (temp file + rename); on failure the old file stays. */
  compact(entries: Map<string, EmbeddedEntry>): void {
    this.#appendsSinceCompaction = 0;
    writeCompacted(this.#path, entries);
    const fd = openSync(this.#path, "a", 0o600);
    closeSync(this.#fd);
    this.#fd = fd;
  }

  close(): void {
    fsyncSync(this.#fd);
    closeSync(this.#fd);
  }

  #append(record: JournalRecord): void {
    writeSync(this.#fd, `${JSON.stringify(record)}\n`);
    this.#appendsSinceCompaction += 1;
  }
}

function replay(path: string, now: number): { entries: Map<string, EmbeddedEntry>; skippedLines: number } {
  const entries = new Map<string, EmbeddedEntry>();
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  let skippedLines = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const record = parseRecord(line);
    if (record === undefined) {
      // A line cut short by a crash in the middle of a write: that change was never acknowledged.
      skippedLines += 1;
      continue;
    }
    if (typeof record.v === "string") entries.set(record.k, { payload: record.v, expiresAt: record.e });
    else entries.delete(record.k);
  }
  for (const [key, entry] of entries) if (entry.expiresAt !== undefined && entry.expiresAt < now) entries.delete(key);
  return { entries, skippedLines };
}

function parseRecord(line: string): JournalRecord | undefined {
  try {
    const record = JSON.parse(line) as unknown;
    if (typeof record === "object" && record !== null && typeof (record as JournalRecord).k === "string") return record as JournalRecord;
  } catch {
    // fall through
  }
  return undefined;
}

function writeCompacted(path: string, entries: Map<string, EmbeddedEntry>): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    let chunk = "";
    for (const [key, entry] of entries) {
      chunk += `${JSON.stringify({ k: key, v: entry.payload, e: entry.expiresAt })}\n`;
      if (chunk.length > 1 << 16) {
        writeSync(fd, chunk);
        chunk = "";
      }
    }
    writeSync(fd, chunk);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  // Make the rename itself durable (best effort: the data is already in place).
  try {
    const dir = openSync(dirname(path), "r");
    fsyncSync(dir);
    closeSync(dir);
  } catch {
    // not every file system lets a directory be fsynced
  }
}
