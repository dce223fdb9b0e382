import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { configFilesOf, type LoadedConfig } from "../config/load-config.ts";

/** Where a configuration is read from: its directory and the plug-ins' files beside the core's. */
type ConfigPlace = Pick<LoadedConfig, "dir" | "plugInFiles">;

/**
 * The policy's hash: SHA-256 over each configuration file's name and contents (a missing optional file
 * counts as absent), base64url, 22 characters like a flow hash. It names exactly which files a provider
 * serves, so the audit trail's config.reloaded events and the running copy (src/reload/running-config.ts) can be
 * compared across nodes. References (${env:…}, ${file:…}) are hashed as written, never their values.
 */
export async function policyHash(config: ConfigPlace): Promise<string> {
  const hash = createHash("sha256");
  for (const { file, text } of await readConfigTexts(config)) hash.update(`${file}\0${text}\0`);
  return hash.digest("base64url").slice(0, 22);
}

/** The text of each configuration file present in the directory, the core's first, then the plug-ins'. */
export async function readConfigTexts(config: ConfigPlace): Promise<Array<{ file: string; text: string }>> {
  const read = await Promise.all(
    configFilesOf(config).map(async ({ file }) => ({ file, text: await readFile(join(config.dir, file), "utf8").catch(() => undefined) })),
  );
  return read.flatMap(({ file, text }) => (text === undefined ? [] : [{ file, text }]));
}
