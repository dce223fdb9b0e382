import type { LoadedConfig } from "../config/load-config.ts";
import { FlowCatalog } from "./login-flows.ts";
import type { LoadedMethod } from "./loaded-methods.ts";
import { loadMethodPlugins } from "./method-plugins.ts";

/**
 * The flows a configuration runs, for reading and drawing only (`portcullis audit trace`): the same
 * machines and definition hashes the provider builds (a hash covers machine definitions, never the
 * actors bound to a store), but with no provider, store or key behind them — nothing here may run.
 */
export async function drawnFlows(config: LoadedConfig): Promise<FlowCatalog> {
  const configured = await loadMethodPlugins(config.login, config.dir);
  const methods = new Map<string, LoadedMethod>(
    [...configured].map(([id, method]) => [id, { ...method, context: undefined as never, actors: {} }]),
  );
  const nothing = async (): Promise<never> => {
    throw new Error("drawn flows do not run");
  };
  const nobody = {
    users: { findByUsername: async () => undefined },
    enrollments: { list: async () => [] },
    eid: { begin: nothing, finish: nothing },
    issuer: config.provider.issuer,
  };
  return new FlowCatalog(nobody, config.login, methods);
}
