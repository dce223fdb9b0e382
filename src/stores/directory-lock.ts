import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Another live process holds the data directory. */
export class DirectoryInUseError extends Error {
  static readonly code: string = "ERR_DATA_DIR_IN_USE";
  readonly code: string = "ERR_DATA_DIR_IN_USE";
  readonly dir: string;
  readonly holder?: number;
  override readonly name = "DirectoryInUseError";

  /** `holder`: the live process that holds the lock, when one does (the CLI words its own advice around it). */
  constructor(message: string, dir: string, holder?: number) {
    super(message);
    this.dir = dir;
    this.holder = holder;
  }
}

/**
 * Claims a directory for this process with a `LOCK` file holding its pid (created exclusively), so a
 * second provider started on the same data_dir refuses to start instead of rewriting the journals
 * under the first one. A lock whose process is gone is stale and taken over. Returns the release.
 */
export function lockDirectory(dir: string): () => void {
  const path = join(dir, "LOCK");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      return () => releaseIfOurs(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = Number.parseInt(readLock(path), 10);
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
      throw new DirectoryInUseError(
        `${dir} is in use by process ${holder}: the embedded store serves one provider process (use Redis or PostgreSQL for several; if no such process runs, delete ${path})`,
        dir,
        holder,
      );
    }
    try {
      unlinkSync(path); // stale: its process is gone
    } catch {
      // someone else removed it first; try again
    }
  }
  throw new DirectoryInUseError(`could not lock ${dir}: another process keeps taking ${path}`, dir);
}

function readLock(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
}

function releaseIfOurs(path: string): void {
  if (readLock(path).trim() === String(process.pid)) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}
