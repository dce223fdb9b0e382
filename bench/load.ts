import { exited } from "./child-processes.ts";
import type { LoadJob, LoadResult } from "./load-protocol.ts";
import { firstJsonLine, startWorker } from "./workers.ts";

/** A LoadJob as the bench describes it: the base URL instead of the full one, plus where to run. */
export interface LoadSpec extends Omit<LoadJob, "url"> {
  /** For messages. */
  name: string;
  baseUrl: string;
  /** The core the load generator is pinned to (not the server's). */
  loadCpu: number;
}

/** Loads one endpoint with autocannon from its own pinned process: warm-up, then the recorded window. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const { name, baseUrl, loadCpu, ...rest } = spec;
  const job: LoadJob = { ...rest, url: new URL(spec.request.path, baseUrl).href };
  const worker = startWorker(loadCpu, "load-generator.ts", [JSON.stringify(job)]);
  const result = await firstJsonLine<LoadResult>(worker, `load generator (${name})`);
  await exited(worker);
  return result;
}
