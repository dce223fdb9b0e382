import { DirectoryInUseError } from "../../stores/directory-lock.ts";
import { StoreUnavailableError } from "../../stores/store-unavailable-error.ts";
import { CliError } from "./cli-error.ts";

/**
 * An operator's one line for a store a command cannot open; undefined for anything else (a bug: rethrow
 * it). `whileRunning`: what else the operator can do while the provider holds the embedded store.
 */
export function storeOpenError(error: unknown, whileRunning = "use Redis or PostgreSQL"): CliError | undefined {
  if (error instanceof DirectoryInUseError) {
    // The provider's own message is written for a second provider; a command beside one needs the advice once, for it.
    const who = error.holder === undefined ? "another process" : `process ${error.holder} (a running provider)`;
    return new CliError(
      `the embedded store in ${error.dir} is in use by ${who}, and it belongs to one process: stop the provider first, or ${whileRunning}`,
    );
  }
  if (error instanceof StoreUnavailableError) return new CliError(`cannot reach the store: ${error.message}`);
  return undefined;
}
