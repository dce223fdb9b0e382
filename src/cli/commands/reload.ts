import { readPid, isPortcullis, pidFilePath } from "../../reload/pid-file.ts";
import { readReloadStatus } from "../../reload/reload-status.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { dataDirOf } from "../support/data-dir-of.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";

/** Generous: a reload loads every file and plugin, slow on a busy machine. Never a measure of speed. */
const ANSWER_WITHIN_MS = 60_000;
const POLL_MS = 100;

/**
 * `portcullis reload`: sends SIGHUP to the provider whose pid file is in the configuration's data_dir,
 * waits for the outcome it writes (`<data_dir>/reload-status.json`) and reports it: exit 0 when the new
 * policy serves, 1 with every error when the reload was refused (the old policy keeps serving).
 */
export const reloadCommand: Command = {
  name: "reload",
  summary: "reload the running provider's configuration without a restart (validated first)",
  options: CONFIG_OPTION,
  async run({ values, stdout, stderr, env }) {
    const { configDir } = resolveCliSettings(values, env);
    const dataDir = dataDirOf(configDir);
    const pid = readPid(dataDir);
    if (pid === undefined || !isPortcullis(pid))
      throw new CliError(`no running provider found: ${pidFilePath(dataDir)} names no live portcullis process`);
    const signalledAt = Date.now();
    process.kill(pid, "SIGHUP");
    const deadline = signalledAt + ANSWER_WITHIN_MS;
    for (;;) {
      const status = await readReloadStatus(dataDir);
      // Any process's answer counts, not only the signalled one's: in cluster mode its workers reload and report.
      if (status && status.finished_at >= signalledAt) {
        if (status.ok) {
          stdout.write(`reloaded: pid ${pid} serves policy ${status.policy_hash}\n`);
          return 0;
        }
        for (const error of status.errors) stderr.write(`${error}\n`);
        stderr.write(
          `reload refused (${status.errors.length} ${status.errors.length === 1 ? "issue" : "issues"}): pid ${pid} keeps serving the previous policy\n`,
        );
        return 1;
      }
      if (Date.now() > deadline) throw new CliError(`pid ${pid} did not report a reload within ${ANSWER_WITHIN_MS / 1000} s; see its log`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  },
};
