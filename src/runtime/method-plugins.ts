import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { ConfigError } from "../errors/config-error.ts";
import type { LoginFile } from "../config/types.generated.ts";
import { buildConfigIssue } from "../config/build-config-issue.ts";
import { coreConfigFile } from "../config/config-files.ts";
import { readConfigSource } from "../config/config-source.ts";
import { describeSchemaError } from "../config/describe-schema-error.ts";
import type { IssueDraft } from "../config/issue-draft.ts";
import type { FactorPlugin } from "../plugin-contract/factor-plugin.ts";
import { methodRoutePrefix } from "../plugin-contract/method-manifest.ts";

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
 * schema. Every problem is reported at once, as a config error on login.yaml, with the line, key and
 * value as the core files' schema errors have them.
 */
export async function loadMethodPlugins(login: LoginFile, configDir: string): Promise<Map<string, ConfiguredMethod>> {
  const methods = new Map<string, ConfiguredMethod>();
  const drafts: IssueDraft[] = [];
  // verbose: each error carries its schema and data, which describeSchemaError needs (allowed keys, the value).
  const ajv = new Ajv({ strict: true, allErrors: true, useDefaults: true, verbose: true });
  for (const [id, configured] of Object.entries(login.methods)) {
    const { runtime, settings } = splitSettings(configured);
    const dir =
      runtime.from === undefined ? join(METHODS_DIR, id) : isAbsolute(runtime.from) ? runtime.from : resolve(configDir, runtime.from);
    if (!existsSync(join(dir, "index.ts"))) {
      drafts.push({
        file: "login",
        at: ["methods", id],
        pointAtKey: true,
        message: `no factor plugin "${id}" (looked for ${join(dir, "index.ts")})`,
      });
      continue;
    }
    const plugin = ((await import(pathToFileURL(join(dir, "index.ts")).href)) as { default: FactorPlugin }).default;
    if (plugin?.manifest?.id !== id) {
      drafts.push({
        file: "login",
        at: ["methods", id],
        pointAtKey: true,
        message: `the plugin in ${dir} does not export a FactorPlugin with id "${id}"`,
      });
      continue;
    }
    if (plugin.manifest.routePrefix !== methodRoutePrefix(id)) {
      drafts.push({
        file: "login",
        at: ["methods", id],
        pointAtKey: true,
        message: `the plugin in ${dir} must serve its routes under ${methodRoutePrefix(id)}, not ${plugin.manifest.routePrefix}`,
      });
      continue;
    }
    const validate = ajv.compile(plugin.manifest.config.schema);
    if (!validate(settings)) {
      for (const error of validate.errors ?? []) {
        // The plugin's schema knows only its own keys; the runtime's (from, amr, attempts) are allowed beside them.
        const described = describeSchemaError(error, [...RUNTIME_KEYS]);
        drafts.push({ file: "login", ...described, at: ["methods", id, ...described.at] });
      }
      continue;
    }
    methods.set(id, { plugin, dir, amr: runtime.amr ?? plugin.amr, runtime, settings });
  }
  if (drafts.length > 0) throw new ConfigError(await locatedIssues(configDir, drafts));
  return methods;
}

/** The drafts as the operator sees them: login.yaml read again for the lines of the keys they name. */
async function locatedIssues(configDir: string, drafts: IssueDraft[]) {
  const { source } = await readConfigSource(configDir, coreConfigFile("login"));
  return drafts.map((draft) => buildConfigIssue(source, draft));
}

function splitSettings(configured: Record<string, unknown>): { runtime: RuntimeMethodSettings; settings: Record<string, unknown> } {
  const runtime: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(structuredClone(configured))) (RUNTIME_KEYS.has(key) ? runtime : settings)[key] = value;
  return { runtime: runtime as RuntimeMethodSettings, settings };
}
