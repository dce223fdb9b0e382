import { ConfigError } from "../../errors/config-error.ts";
import type { Infra } from "../../infra/infra.ts";
import { printConfigError } from "./print-config-error.ts";
import { storeOpenError } from "./store-open-error.ts";

/**
 * The provider on the configured store, for an operator's command that works on what the provider keeps
 * (`methods`, `users`): quiet (warnings only), its acts on the audit trail the config names. Undefined
 * after printing an invalid configuration. With the embedded store this fails while a provider runs (it
 * holds the data directory): the message says so, and `whileRunning` what to do instead.
 */
export async function openProvider(configDir: string, stderr: NodeJS.WritableStream, whileRunning?: string): Promise<Infra | undefined> {
  // Imported here: a command that does not open the provider should not load it.
  const { loadInstalledConfig } = await import("../../extensions/installed-extensions.ts");
  const { createLogger } = await import("../../logging/create-logger.ts");
  const { createProvider } = await import("../../provider.ts");
  const { operatorAuditTrail } = await import("./operator-audit-trail.ts");
  try {
    const config = await loadInstalledConfig(configDir);
    return await createProvider(config, { logger: createLogger("warn", stderr as never), audit: operatorAuditTrail(config) });
  } catch (error) {
    if (error instanceof ConfigError) {
      printConfigError(error, configDir, stderr);
      return undefined;
    }
    throw storeOpenError(error, whileRunning) ?? error;
  }
}
