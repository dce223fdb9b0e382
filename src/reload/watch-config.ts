import { watch } from "node:fs";
import type { Logger } from "pino";
import { configFilesOf, type LoadedConfig } from "../config/load-config.ts";
import type { ProviderReloader } from "./provider-reloader.ts";

/** Editors write a file in several steps (truncate, write, rename): one reload after the burst. */
const DEBOUNCE_MS = 300;

/**
 * provider.yaml `reload.watch`: reloads when anything in the configuration directory changes, once the
 * changes have settled. A half-saved file that does not validate is refused like any reload, and the
 * next save reloads again. Returns the function that stops watching.
 */
export function watchConfig(config: Pick<LoadedConfig, "dir" | "plugInFiles">, reloader: ProviderReloader, logger: Logger): () => void {
  const { dir } = config;
  // Only the configuration files count: a data_dir inside the config directory must not reload itself at each write.
  const watched = new Set<string>(configFilesOf(config).map((entry) => entry.file));
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, { persistent: false }, (_event, file) => {
    if (file !== null && !watched.has(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void reloader.reload(), DEBOUNCE_MS);
  });
  watcher.on("error", (err) => logger.error({ err, dir }, "configuration watch failed: reload with SIGHUP or `portcullis reload`"));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
