import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** `<data_dir>/reload-status.json`: the outcome of the last reload attempt, which `portcullis reload` waits for. */
export const reloadStatusPath = (dataDir: string) => join(dataDir, "reload-status.json");

export interface ReloadStatus {
  pid: number;
  /** Epoch ms when the attempt ended: `portcullis reload` waits for one that ended after its signal. */
  finished_at: number;
  ok: boolean;
  policy_hash: string;
  errors: string[];
}

/** Written whole and renamed into place: a reader never sees half a status. */
export async function writeReloadStatus(dataDir: string, status: ReloadStatus): Promise<void> {
  const path = reloadStatusPath(dataDir);
  await writeFile(`${path}.${process.pid}.tmp`, JSON.stringify(status), { mode: 0o600 });
  await rename(`${path}.${process.pid}.tmp`, path);
}

export async function readReloadStatus(dataDir: string): Promise<ReloadStatus | undefined> {
  try {
    return JSON.parse(await readFile(reloadStatusPath(dataDir), "utf8")) as ReloadStatus;
  } catch {
    return undefined;
  }
}
