import { DirectoryInUseError } from "../../stores/directory-lock.ts";
import { StoreUnavailableError } from "../../stores/store-unavailable-error.ts";
import { CliError } from "./cli-error.ts";

/** An operator's one line for a store a command cannot open; undefined for anything else (a bug: rethrow it). */
export function storeOpenError(error: unknown): CliError | undefined {
  if (error instanceof DirectoryInUseError) return new CliError(`${error.message} — stop the provider first (the embedded store belongs to one process), or use Redis or PostgreSQL`);
  if (error instanceof StoreUnavailableError) return new CliError(`cannot reach the store: ${error.message}`);
  return undefined;
}
