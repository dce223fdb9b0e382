import type { PlugInConfigFile } from "../config/config-files.ts";
import { loadConfig, type LoadedConfig } from "../config/load-config.ts";
import type { Extension } from "../plugin-contract/extension.ts";
import { customLoginExtension } from "./custom-login/custom-login-extension.ts";

/**
 * The extensions this build carries: the composition root starts them, declares their record kinds to
 * the store and has their config files loaded (the store and the config loader never import this list).
 */
export const INSTALLED_EXTENSIONS: readonly Extension[] = [customLoginExtension];

/** Their config files, for loadConfig: what every composition entry (start, reload, the CLI) reads. */
export const INSTALLED_CONFIG_FILES: readonly PlugInConfigFile[] = INSTALLED_EXTENSIONS.map((extension) => extension.manifest.config.file);

/** The configuration in `dir` with the installed extensions' files: how a provider, a reload and the CLI read it. */
export function loadInstalledConfig(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  return loadConfig(dir, env, INSTALLED_CONFIG_FILES);
}
