import { BenchError } from "./bench-error.ts";

/** Further settings of provider.yaml, as dotted paths (e.g. "listen.workers") → values. */
export type ProviderEdits = Record<string, unknown>;

/**
 * BENCH_PROVIDER_EDITS: a JSON object of such settings for the measured provider, to see what one
 * costs (e.g. `{"logging.requests":false}`); the bench's own edits win over it.
 */
export function editsFromEnv(text: string | undefined): ProviderEdits {
  if (text === undefined || text.trim() === "") return {};
  let edits: unknown;
  try {
    edits = JSON.parse(text);
  } catch {
    throw new BenchError(`BENCH_PROVIDER_EDITS is not JSON: ${text}`);
  }
  if (edits === null || typeof edits !== "object" || Array.isArray(edits))
    throw new BenchError(
      `BENCH_PROVIDER_EDITS must be a JSON object of dotted provider.yaml paths and values, e.g. {"logging.requests":false} (got ${text})`,
    );
  return edits as ProviderEdits;
}
