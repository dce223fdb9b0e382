import { exited } from "./child-processes.ts";
import type { DirectoryJob, FlowJob, LoadJob, LoadResult } from "./load-protocol.ts";
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
  return runWorker(loadCpu, "load-generator.ts", job, `load generator (${name})`);
}

/** Loops code flows with virtual users from their own pinned process: warm-up, then the recorded window. */
export async function runFlowLoad(spec: FlowJob & { name: string; loadCpu: number }): Promise<LoadResult> {
  const { name, loadCpu, ...job } = spec;
  return runWorker(loadCpu, "flow-generator.ts", job satisfies FlowJob, `flow load generator (${name})`);
}

/** Loops directory checks (a search and a bind) with virtual users against slapd from their own pinned process. */
export async function runDirectoryLoad(spec: DirectoryJob & { name: string; loadCpu: number }): Promise<LoadResult> {
  const { name, loadCpu, ...job } = spec;
  return runWorker(loadCpu, "directory-load.ts", job satisfies DirectoryJob, `directory load generator (${name})`);
}

async function runWorker(loadCpu: number, script: string, job: LoadJob | FlowJob | DirectoryJob, what: string): Promise<LoadResult> {
  const worker = startWorker(loadCpu, script, [JSON.stringify(job)]);
  const result = await firstJsonLine<LoadResult>(worker, what);
  await exited(worker);
  return result;
}
