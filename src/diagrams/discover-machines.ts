import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "yaml";
import { createLoginFlow } from "../../flows/login.flow.ts";
import { createLoginTypeFlow, isMethodFlowKind } from "../../flows/login-type-flow.ts";
import { eidFlow } from "../../flows/eid.flow.ts";
import type { AnyStateMachine } from "xstate";
import type { FactorPlugin } from "../plugin-contract/factor-plugin.ts";
import { METHODS_DIR } from "../runtime/method-plugins.ts";
import { INSTALLED_EXTENSIONS } from "../extensions/installed-extensions.ts";
import { catalogMachines, type DrawableMachine, type LoginFlowKind } from "./machine-catalog.ts";
import { buildLoginPolicy } from "../login-policy/build-login-policy.ts";
import type { LoginType } from "../login-policy/login-policy.ts";
import type { LoginFile } from "../config/types.generated.ts";

/** The demo configuration at the repository root (`config/`). */
export const DEMO_CONFIG_DIR = fileURLToPath(new URL("../../config/", import.meta.url));

/** Where to look; the defaults are the repository's own plugin folders and demo configuration. */
export interface DiscoveryOptions {
  methodsDir?: string;
  configDir?: string;
}

/**
 * Every machine of the repository, for `npm run diagrams` and the path tests: the default login flow
 * built for the methods config/login.yaml's `default_flow` lists (in that order), each login type's
 * flow (over its methods; the eID flow for an eid login type), the built-in
 * machines, and every factor plugin folder `flows/methods/<id>/index.ts` found now — a new plugin
 * is drawn and path-tested without a change here. A method the config loads from elsewhere
 * (`methods.<id>.from`) is included too. Plugin modules are imported directly: no provider, no store.
 */
export async function discoverMachines(options: DiscoveryOptions = {}): Promise<DrawableMachine[]> {
  const methodsDir = options.methodsDir ?? METHODS_DIR;
  const configDir = options.configDir ?? DEMO_CONFIG_DIR;
  const plugins = new Map<string, FactorPlugin>();
  for (const id of pluginFolders(methodsDir)) plugins.set(id, await importPlugin(join(methodsDir, id), id));

  const login = readLoginYaml(configDir);
  for (const [id, settings] of Object.entries(login.methods)) {
    const from = settings?.from;
    if (typeof from !== "string" || plugins.has(id)) continue;
    plugins.set(id, await importPlugin(isAbsolute(from) ? from : resolve(configDir, from), id));
  }
  const flowMethods = (ids: readonly string[], where: string) =>
    ids.map((id) => {
      const plugin = plugins.get(id);
      if (!plugin) throw new Error(`config/login.yaml: ${where} names "${id}", which no plugin folder provides`);
      return {
        id,
        identifiesUser: plugin.identifiesUser,
        class: plugin.class,
        enrollable: plugin.manifest.machines.enrollment !== undefined,
      };
    });
  const loginFlows: [string, AnyStateMachine, LoginFlowKind, LoginType?][] = [
    ["default", createLoginFlow(flowMethods(login.default_flow.methods, "default_flow")), "login"],
  ];
  // The plans as the provider reads them (defaults filled in), for the facts beside each login type's chart.
  const plans = buildLoginPolicy(login as unknown as LoginFile, new Map([...plugins].map(([id, plugin]) => [id, plugin.class]))).loginTypes;
  for (const [name, type] of Object.entries(login.login_types)) {
    const plan = plans.get(name.toLowerCase());
    if (type.flow === "eid") loginFlows.push([name, eidFlow, "login_eid", plan]);
    else if (isMethodFlowKind(type.flow) && type.flow !== "single_factor")
      loginFlows.push([
        name,
        createLoginTypeFlow(type.flow, flowMethods(type.methods ?? [], `login_types.${name}`)),
        `login_${type.flow}`,
        plan,
      ]);
  }
  return catalogMachines({ loginFlows, plugins, extensions: INSTALLED_EXTENSIONS });
}

/** The folders under `dir` that hold a plugin (an index.ts), sorted. */
export function pluginFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "index.ts")))
    .map((entry) => entry.name)
    .sort();
}

async function importPlugin(dir: string, id: string): Promise<FactorPlugin> {
  const plugin = ((await import(pathToFileURL(join(dir, "index.ts")).href)) as { default?: FactorPlugin }).default;
  if (plugin?.manifest?.id !== id || !plugin.manifest.machines?.login)
    throw new Error(`${join(dir, "index.ts")} does not default-export a FactorPlugin with id "${id}"`);
  return plugin;
}

interface LoginYaml {
  methods: Record<string, { from?: unknown } | null>;
  default_flow: { methods: string[] };
  /** Each login type with every key it declares (its plan's facts are shown beside its chart). */
  login_types: Record<string, { flow: string; methods?: string[] }>;
}

// Only the keys the drawing needs, and the login types whole; the provider's loader validates the whole file.
function readLoginYaml(configDir: string): LoginYaml {
  const file = join(configDir, "login.yaml");
  const parsed = parse(readFileSync(file, "utf8")) as Partial<LoginYaml> | null;
  const methods = parsed?.default_flow?.methods;
  if (!Array.isArray(methods) || methods.some((id) => typeof id !== "string"))
    throw new Error(`${file}: default_flow.methods must be a list of method ids`);
  return { methods: parsed?.methods ?? {}, default_flow: { methods }, login_types: parsed?.login_types ?? {} };
}
