import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { ConfigError, type ConfigIssue } from "../config/config-error.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { FactorPlugin } from "./factor-plugin.ts";

/** A configured method: its plugin and its validated settings from login.yaml. */
export interface ConfiguredMethod {
  plugin: FactorPlugin;
  settings: Record<string, unknown>;
}

/** flows/methods/ at the repository root; resolved from this module, so any working directory works. */
export const METHODS_DIR = new URL("../../flows/methods/", import.meta.url).pathname;

/**
 * Finds the plugin of every method configured in login.yaml — folder `<dir>/<id>/index.ts`, searched
 * in `dirs` in order — and validates its settings against the plugin's own schema. Every problem is
 * reported at once, as a config error on login.yaml.
 */
export async function loadMethodPlugins(login: LoginFile, dirs: readonly string[] = [METHODS_DIR]): Promise<Map<string, ConfiguredMethod>> {
  const methods = new Map<string, ConfiguredMethod>();
  const issues: ConfigIssue[] = [];
  const ajv = new Ajv({ strict: true, allErrors: true, useDefaults: true });
  for (const [id, settings] of Object.entries(login.methods)) {
    const dir = dirs.map((d) => join(d, id)).find((d) => existsSync(join(d, "index.ts")));
    if (!dir) {
      issues.push({ file: "login.yaml", path: `methods.${id}`, message: `no factor plugin "${id}" (looked for ${dirs.map((d) => join(d, id, "index.ts")).join(", ")})` });
      continue;
    }
    const plugin = ((await import(pathToFileURL(join(dir, "index.ts")).href)) as { default: FactorPlugin }).default;
    if (plugin?.id !== id) {
      issues.push({ file: "login.yaml", path: `methods.${id}`, message: `the plugin in ${dir} does not export a FactorPlugin with id "${id}"` });
      continue;
    }
    const validate = ajv.compile(plugin.configSchema);
    const own = structuredClone(settings) as Record<string, unknown>;
    if (!validate(own)) {
      for (const e of validate.errors ?? []) issues.push({ file: "login.yaml", path: `methods.${id}${e.instancePath.replaceAll("/", ".")}`, message: e.message ?? "invalid" });
      continue;
    }
    methods.set(id, { plugin, settings: own });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return methods;
}
