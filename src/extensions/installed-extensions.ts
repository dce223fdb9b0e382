import type { ConfigFileEntry, PlugInConfigFile } from "../config/config-files.ts";
import { configFilesOf, loadConfig, type LoadedConfig } from "../config/load-config.ts";
import type { Extension, ExtensionManifest } from "../plugin-contract/extension.ts";
import { CUSTOM_LOGIN_MANIFEST } from "./custom-login/manifest.ts";

/**
 * An extension this build carries: its manifest, which is data and cheap to import (every CLI command
 * that reads the configuration reads the manifests' config files), and its code, imported only when a
 * provider starts it.
 */
export interface InstalledExtension {
  readonly manifest: ExtensionManifest;
  load(): Promise<Extension>;
}

/**
 * The extensions this build carries: the composition root starts them, declares their record kinds to
 * the store and has their config files loaded (the store and the config loader never import this list).
 */
export const INSTALLED_EXTENSIONS: readonly InstalledExtension[] = [
  {
    manifest: CUSTOM_LOGIN_MANIFEST,
    load: () => import("./custom-login/custom-login-extension.ts").then((module) => module.customLoginExtension),
  },
];

/** Their config files, for loadConfig: what every composition entry (start, reload, the CLI) reads. */
export const INSTALLED_CONFIG_FILES: readonly PlugInConfigFile[] = INSTALLED_EXTENSIONS.map((extension) => extension.manifest.config.file);

/** Every file this build reads from a configuration directory: the core's, then the installed extensions'. */
export const INSTALLED_CONFIG_ENTRIES: readonly ConfigFileEntry[] = configFilesOf({ plugInFiles: INSTALLED_CONFIG_FILES });

/** The configuration in `dir` with the installed extensions' files: how a provider, a reload and the CLI read it. */
export function loadInstalledConfig(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  return loadConfig(dir, env, INSTALLED_CONFIG_FILES);
}
