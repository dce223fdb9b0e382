import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { readConfigTexts } from "../snapshot/policy-hash.ts";

/** `<data_dir>/running-config/`: the files the provider last loaded (start or reload), for `check-config --diff`. */
export const runningConfigDir = (dataDir: string) => join(dataDir, "running-config");

type ConfigTexts = Awaited<ReturnType<typeof readConfigTexts>>;

/**
 * Keeps a copy of the configuration files a provider serves. The running policy itself is not readable
 * from outside the process, so `check-config --diff` compares with this copy (docs/decisions.md). The
 * files are copied as written: a ${env:…} reference stays a reference, never its value. Written to a new
 * folder that then replaces the old one, so a reader sees one load's files, never a mix of two.
 */
export async function recordRunningConfig(dataDir: string, texts: ConfigTexts): Promise<void> {
  const target = runningConfigDir(dataDir);
  const next = `${target}.${process.pid}.tmp`;
  await rm(next, { recursive: true, force: true });
  await mkdir(next, { recursive: true, mode: 0o700 });
  for (const { file, text } of texts) await writeFile(join(next, file), text, { mode: 0o600 });
  await rm(target, { recursive: true, force: true });
  await rename(next, target);
}

/** The recorded files by name; undefined when no provider recorded any in this data_dir. */
export async function readRunningConfig(dataDir: string): Promise<Map<string, string> | undefined> {
  const dir = runningConfigDir(dataDir);
  const files = await readdir(dir).catch(() => undefined);
  if (files === undefined) return undefined;
  return new Map(await Promise.all(files.map(async (file) => [file, await readFile(join(dir, file), "utf8")] as const)));
}
