import { exited } from "./child-processes.ts";
import type { LoadRequest } from "./endpoints.ts";
import type { LoadJob, LoadResult } from "./load-protocol.ts";
import { firstJsonLine, startWorker } from "./workers.ts";

export interface LoadSpec {
  /** For messages. */
  name: string;
  baseUrl: string;
  request: LoadRequest;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  serverPid: number;
  /** The core the server is pinned to. */
  serverCpu: number;
  /** The core the load generator is pinned to (not the server's). */
  loadCpu: number;
}

/** Loads one endpoint with autocannon from its own pinned process: warm-up, then the recorded window. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const job: LoadJob = {
    url: new URL(spec.request.path, spec.baseUrl).href,
    request: spec.request,
    connections: spec.connections,
    warmupSeconds: spec.warmupSeconds,
    durationSeconds: spec.durationSeconds,
    serverPid: spec.serverPid,
    serverCpu: spec.serverCpu,
  };
  const worker = startWorker(spec.loadCpu, "load-generator.ts", [JSON.stringify(job)]);
  const result = await firstJsonLine<LoadResult>(worker, `load generator (${spec.name})`);
  await exited(worker);
  return result;
}
