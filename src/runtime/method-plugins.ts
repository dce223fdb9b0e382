import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { ConfigError, type ConfigIssue } from "../errors/config-error.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { FactorPlugin } from "../plugin-contract/factor-plugin.ts";

/** The runtime's own keys of `methods.<id>` in login.yaml; everything else is the plugin's settings. */
export interface RuntimeMethodSettings {
  /** The plugin folder, relative to the config directory (default: flows/methods/<id>/). */
  from?: string;
  /** Replaces the plugin's amr value in tokens. */
  amr?: string;
  /** Failed attempts per account before the method locks for the window (default: provider.yaml's password_attempts). */
  attempts?: { max_failures?: number; window?: string };
}

const RUNTIME_KEYS: ReadonlySet<string> = new Set(["from", "amr", "attempts"]);

/** A configured method: its plugin, its folder, the runtime's settings and its own validated settings. */
export interface ConfiguredMethod {
  plugin: FactorPlugin;
  /** The folder the plugin was loaded from (its i18n/ lives there). */
  dir: string;
  /** The amr value tokens carry for it (config override, else the plugin's). */
  amr: string;
  runtime: RuntimeMethodSettings;
  settings: Record<string, unknown>;
}

/** flows/methods/ at the repository root; resolved from this module, so any working directory works. */
export const METHODS_DIR = new URL("../../flows/methods/", import.meta.url).pathname;

/**
 * Finds the plugin of every method configured in login.yaml — `methods.<id>.from` (relative to the
 * config directory), else `flows/methods/<id>/` — and validates its settings against the plugin's own
 * schema. Every problem is reported at once, as a config error on login.yaml.
 */
export async function loadMethodPlugins(login: LoginFile, configDir: string): Promise<Map<string, ConfiguredMethod>> {
  const methods = new Map<string, ConfiguredMethod>();
  const issues: ConfigIssue[] = [];
  const ajv = new Ajv({ strict: true, allErrors: true, useDefaults: true });
  for (const [id, configured] of Object.entries(login.methods)) {
    const { runtime, settings } = splitSettings(configured);
    const dir = runtime.from === undefined ? join(METHODS_DIR, id) : isAbsolute(runtime.from) ? runtime.from : resolve(configDir, runtime.from);
    if (!existsSync(join(dir, "index.ts"))) {
      issues.push({ file: "login.yaml", path: `methods.${id}`, message: `no factor plugin "${id}" (looked for ${join(dir, "index.ts")})` });
      continue;
    }
    const plugin = ((await import(pathToFileURL(join(dir, "index.ts")).href)) as { default: FactorPlugin }).default;
    if (plugin?.id !== id) {
      issues.push({ file: "login.yaml", path: `methods.${id}`, message: `the plugin in ${dir} does not export a FactorPlugin with id "${id}"` });
      continue;
    }
    const validate = ajv.compile(plugin.configSchema);
    if (!validate(settings)) {
      for (const e of validate.errors ?? []) issues.push({ file: "login.yaml", path: `methods.${id}${e.instancePath.replaceAll("/", ".")}`, message: e.message ?? "invalid" });
      continue;
    }
    methods.set(id, { plugin, dir, amr: runtime.amr ?? plugin.amr, runtime, settings });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return methods;
}

function splitSettings(configured: Record<string, unknown>): { runtime: RuntimeMethodSettings; settings: Record<string, unknown> } {
  const runtime: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(structuredClone(configured))) (RUNTIME_KEYS.has(key) ? runtime : settings)[key] = value;
  return { runtime: runtime as RuntimeMethodSettings, settings };
}
