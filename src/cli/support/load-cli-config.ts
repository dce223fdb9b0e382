import { ConfigError } from "../../errors/config-error.ts";
import type { LoadedConfig } from "../../config/load-config.ts";
import { loadInstalledConfig } from "../../extensions/installed-extensions.ts";
import { printConfigError } from "./print-config-error.ts";

/** The configuration a command works on; undefined after printing every issue of an invalid one (the command exits 1). */
export async function loadCliConfig(
  configDir: string,
  env: NodeJS.ProcessEnv,
  stderr: NodeJS.WritableStream,
): Promise<LoadedConfig | undefined> {
  try {
    return await loadInstalledConfig(configDir, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printConfigError(error, configDir, stderr);
    return undefined;
  }
}
