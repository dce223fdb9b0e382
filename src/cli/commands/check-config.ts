import { ConfigError } from "../../errors/config-error.ts";
import { loadConfig } from "../../config/load-config.ts";
import { loadMethodPlugins } from "../../runtime/method-plugins.ts";
import type { Command } from "../support/command.ts";
import { printConfigError } from "../support/print-config-error.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";

/**
 * `portcullis check-config`: the whole load (schema, references, cross-field rules, and each factor
 * plugin's own settings schema) without starting.
 */
export const checkConfigCommand: Command = {
  name: "check-config",
  summary: "validate the configuration without starting; exit 1 with every issue when invalid",
  options: CONFIG_OPTION,
  async run({ values, stdout, stderr, env }) {
    const { configDir } = resolveCliSettings(values, env);
    try {
      const config = await loadConfig(configDir, env);
      await loadMethodPlugins(config.login, config.dir);
      const scopes = config.scopes.identity_scopes.length + config.scopes.api_resources.reduce((n, r) => n + r.scopes.length, 0);
      const counts = [count(config.clients.clients.length, "client"), count(scopes, "scope"), count(config.users.users.length, "user")];
      stdout.write(`config OK: ${configDir} (${counts.join(", ")})\n`);
      return 0;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      printConfigError(error, configDir, stderr);
      return 1;
    }
  },
};

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
