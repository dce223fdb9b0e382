import type { LoadedConfig } from "../config/load-config.ts";
import type { Infra } from "../infra/infra.ts";
import { readConfigTexts } from "../snapshot/policy-hash.ts";
import { reloadProvider, type ReloadResult } from "./reload-provider.ts";
import { recordRunningConfig } from "./running-config.ts";
import { writeReloadStatus } from "./reload-status.ts";

/** Reloads one running provider, whatever triggers it (SIGHUP, `portcullis reload`, the config watch). */
export interface ProviderReloader {
  reload(): Promise<ReloadResult>;
  /** Records the files loaded at start for `check-config --diff` (start-provider calls it once). */
  recordStart(): Promise<void>;
}

/**
 * One reload at a time (a second trigger waits for the first, then reads the files again), each
 * compared with the configuration last loaded. After each attempt the outcome goes to
 * `<data_dir>/reload-status.json` (what `portcullis reload` reports) and, when it succeeded, the files
 * to `<data_dir>/running-config/` (what `check-config --diff` compares with).
 */
export function createReloader(infra: Infra, loadedAtStart: LoadedConfig): ProviderReloader {
  let running = loadedAtStart;
  let queue: Promise<unknown> = Promise.resolve();
  const dataDir = infra.settings.data_dir;

  const recordFiles = () => readConfigTexts(running).then((texts) => recordRunningConfig(dataDir, texts));
  const bestEffort = (what: string) => (err: unknown) => infra.logger.warn({ err, dataDir }, `could not write ${what}`);

  return {
    reload() {
      const attempt = queue.then(async () => {
        const result = await reloadProvider(infra, running);
        if (result.loaded) running = result.loaded;
        if (result.ok) await recordFiles().catch(bestEffort("the running configuration's copy"));
        const status = { pid: process.pid, finished_at: Date.now(), ok: result.ok, policy_hash: result.policyHash, errors: result.errors };
        await writeReloadStatus(dataDir, status).catch(bestEffort("the reload status"));
        return result;
      });
      queue = attempt.catch(() => {});
      return attempt;
    },
    recordStart: () => recordFiles().catch(bestEffort("the running configuration's copy")),
  };
}
