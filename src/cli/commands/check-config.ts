import { ConfigError } from "../../errors/config-error.ts";
import { INSTALLED_CONFIG_ENTRIES, INSTALLED_CONFIG_FILES, loadInstalledConfig } from "../../extensions/installed-extensions.ts";
import { loadMethodPlugins } from "../../runtime/method-plugins.ts";
import { firstUseOnSignedLinks } from "../../login-policy/first-use-on-signed-links.ts";
import { expiringClientSecrets } from "../../oauth/expiring-client-secrets.ts";
import { readConfigTexts } from "../../snapshot/policy-hash.ts";
import { readRunningConfig, runningConfigDir } from "../../reload/running-config.ts";
import { formatConfigDiff } from "../../reload/format-config-diff.ts";
import type { Command } from "../support/command.ts";
import { dataDirOf } from "../support/data-dir-of.ts";
import { printConfigError } from "../support/print-config-error.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";
import { ldapSettings } from "../../users/ldap/ldap-settings.ts";
import { probeDirectory } from "../../users/ldap/probe-directory.ts";

/**
 * `portcullis check-config`: the whole load (schema, references, cross-field rules, and each factor
 * plugin's own settings schema) without starting; a valid but risky setting is a warning on stderr.
 * With an LDAP directory (directory.yaml) it then asks the directory (src/users/ldap/probe-directory.ts):
 * connection and TLS, the service account's bind, the base, the filter, one person against the mapping.
 * `--diff` first shows what a reload would change: the files on disk against the copy the running
 * provider keeps of the files it last loaded (`<data_dir>/running-config/`, src/reload/running-config.ts).
 */
export const checkConfigCommand: Command = {
  name: "check-config",
  summary: "validate the configuration without starting; exit 1 with every issue when invalid",
  options: {
    ...CONFIG_OPTION,
    user: {
      type: "string",
      valueName: "NAME",
      description:
        "with an LDAP directory: the login name of the person whose entry is checked against the claims mapping (default: the first person found)",
    },
    diff: {
      type: "boolean",
      description: "also show what a reload would change, against the files the running provider last loaded (<data_dir>/running-config)",
    },
  },
  async run({ values, stdout, stderr, env }) {
    const { configDir } = resolveCliSettings(values, env);
    if (values.diff && !(await printDiff(configDir, stdout, stderr))) return 1;
    try {
      const config = await loadInstalledConfig(configDir, env);
      await loadMethodPlugins(config.login, config.dir);
      const scopes = config.scopes.identity_scopes.length + config.scopes.api_resources.reduce((n, r) => n + r.scopes.length, 0);
      const people = config.directory.type === "ldap" ? "an LDAP directory" : count(config.users.users.length, "user");
      const counts = [count(config.clients.clients.length, "client"), count(scopes, "scope"), people];
      stdout.write(`config OK: ${configDir} (${counts.join(", ")})\n`);
      // Valid, but risky: said after the verdict, on stderr, and the exit status stays 0.
      for (const { warning } of firstUseOnSignedLinks(config.login)) stderr.write(`warning: ${warning}\n`);
      for (const warning of expiringClientSecrets(config.clients, Date.now())) stderr.write(`warning: ${warning}\n`);
      if (config.directory.type !== "ldap") return 0;
      // The files are right; whether the directory answers them is the next question.
      const steps = await probeDirectory(ldapSettings(config.directory.ldap!, config.dir), values.user as string | undefined);
      for (const { ok, line } of steps) (ok ? stdout : stderr).write(`directory: ${ok ? "" : "FAILED: "}${line}\n`);
      return steps.every((probe) => probe.ok) ? 0 : 1;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      printConfigError(error, configDir, stderr);
      return 1;
    }
  },
};

/** The changes, or why there is nothing to compare with; false when there is not. */
async function printDiff(configDir: string, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Promise<boolean> {
  const dataDir = dataDirOf(configDir);
  const running = await readRunningConfig(dataDir);
  if (!running) {
    stderr.write(
      `no running configuration to compare with: ${runningConfigDir(dataDir)} is missing (a provider records the files there at start and at each reload)\n`,
    );
    return false;
  }
  const onDisk = new Map(
    (await readConfigTexts({ dir: configDir, plugInFiles: INSTALLED_CONFIG_FILES })).map(({ file, text }) => [file, text]),
  );
  const lines = formatConfigDiff(running, onDisk, INSTALLED_CONFIG_ENTRIES);
  stdout.write(
    lines.length === 0
      ? "no changes: a reload would serve the same policy\n"
      : `a reload would change (against ${runningConfigDir(dataDir)}):\n${lines.join("\n")}\n`,
  );
  return true;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
