import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `<data_dir>/portcullis.pid`: the process an operator signals (`portcullis reload` sends it SIGHUP). */
export const pidFilePath = (dataDir: string) => join(dataDir, "portcullis.pid");

/** Another provider runs with this data_dir: starting a second would take its pid file (and its signals). */
export class PidFileInUseError extends Error {
  static readonly code: string = "ERR_PID_FILE_IN_USE";
  readonly code: string = "ERR_PID_FILE_IN_USE";
  override readonly name = "PidFileInUseError";
}

/**
 * Writes this process's pid, refusing when the file names another live portcullis process: `reload`
 * must reach the provider that serves, not whichever started last. A stale file (its process gone, or the
 * pid reused by another program) is replaced. Returns the function that removes the file (on exit).
 */
export function writePidFile(dataDir: string): () => void {
  const path = pidFilePath(dataDir);
  const other = readPid(dataDir);
  if (other !== undefined && other !== process.pid && isPortcullis(other)) {
    throw new PidFileInUseError(
      `another portcullis process (pid ${other}) runs with data_dir ${dataDir} (${path}); stop it, or give this one a data_dir of its own`,
    );
  }
  // A first start: the cluster primary writes the file before any provider has made data_dir.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${process.pid}\n`, { mode: 0o644 });
  return () => {
    if (readPid(dataDir) === process.pid) rmSync(path, { force: true });
  };
}

/** The pid the file names; undefined when there is no file or it holds no pid. */
export function readPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFilePath(dataDir), "utf8").trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Alive, and (where /proc tells) a node process running portcullis rather than a program that got a reused pid. */
export function isPortcullis(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("portcullis");
  } catch {
    return true; // no /proc: alive is all we can tell
  }
}
