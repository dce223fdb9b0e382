import { exited, stop } from "./child-processes.ts";
import { runLoad } from "./load.ts";
import type { LoadResult } from "./load-protocol.ts";
import type { LoopSample } from "./workers/tight-loop.ts";
import { firstJsonLine, startWorker } from "./workers.ts";

/**
 * This machine's floors, measured in the same run as the provider, on the same core: what the provider's
 * numbers are divided by. They move with the machine and its neighbours; the ratios mostly don't.
 */

/** The floors measured as a tight loop of one operation on the server core. */
export type LoopFloorName = "rs256" | "scrypt";

export type { LoopSample };

const LOOP_WORKERS: Record<LoopFloorName, { script: string; what: string; warmupSeconds: number; seconds: number }> = {
  /** RSA-2048 signatures (node:crypto sign in a loop). */
  rs256: { script: "rs256-signer.ts", what: "RS256 signer", warmupSeconds: 1, seconds: 3 },
  /** scrypt password verifications with the demo users' parameters: ~10 per second, so a longer window. */
  scrypt: { script: "scrypt-hasher.ts", what: "scrypt hasher", warmupSeconds: 1, seconds: 4 },
};

/** One sample of a loop floor on `serverCpu`: a warm-up, then the measured window. */
export async function measureLoopFloor(floor: LoopFloorName, serverCpu: number): Promise<LoopSample> {
  const { script, what, warmupSeconds, seconds } = LOOP_WORKERS[floor];
  const worker = startWorker(serverCpu, script, [String(warmupSeconds), String(seconds), String(serverCpu)]);
  const result = await firstJsonLine<LoopSample>(worker, what);
  await exited(worker);
  return result;
}

export interface BareHttpFloorSpec {
  serverCpu: number;
  loadCpu: number;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

/** Requests per second of a minimal node:http server on the server core, loaded from the load core. */
export async function measureBareHttpFloor(spec: BareHttpFloorSpec): Promise<LoadResult> {
  const server = startWorker(spec.serverCpu, "bare-http-server.ts", []);
  try {
    const { port } = await firstJsonLine<{ port: number }>(server, "bare node:http server");
    return await runLoad({
      name: "bare node:http",
      baseUrl: `http://127.0.0.1:${port}`,
      request: { path: "/", method: "GET" },
      connections: spec.connections,
      warmupSeconds: spec.warmupSeconds,
      durationSeconds: spec.durationSeconds,
      serverPid: server.pid!,
      serverCpu: spec.serverCpu,
      loadCpu: spec.loadCpu,
    });
  } finally {
    await stop(server);
  }
}
