import type { LoadedConfig } from "../../config/load-config.ts";
import { loadInstalledConfig } from "../../extensions/installed-extensions.ts";
import { buildLoginPolicy } from "../../login-policy/build-login-policy.ts";
import { ClientRegistry } from "../../oauth/client-registry.ts";
import { loadMethodPlugins, type ConfiguredMethod } from "../../runtime/method-plugins.ts";
import type { ExplainPolicy } from "./explain-authorize-request.ts";

export interface LoadedExplainPolicy {
  config: LoadedConfig;
  methods: ReadonlyMap<string, ConfiguredMethod>;
  policy: ExplainPolicy;
}

/**
 * The configuration as the server loads it (schema, references, cross-field rules, each plugin's
 * settings), and the parts of the policy snapshot the what-if reads, built by the same functions as
 * the provider's: the client registry and the login policy with each method's class from its plugin.
 * No store, no keys: explaining a request touches nothing.
 */
export async function loadExplainPolicy(configDir: string, env: NodeJS.ProcessEnv): Promise<LoadedExplainPolicy> {
  const config = await loadInstalledConfig(configDir, env);
  const methods = await loadMethodPlugins(config.login, config.dir);
  const classes = new Map([...methods].map(([id, m]) => [id, m.plugin.class]));
  const policy: ExplainPolicy = {
    clients: new ClientRegistry(config.clients.clients, config.provider.lifetimes),
    login: buildLoginPolicy(config.login, classes),
    amr: new Map([...methods].map(([id, m]) => [id, m.amr])),
  };
  return { config, methods, policy };
}
