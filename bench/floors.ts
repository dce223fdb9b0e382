import { exited, stop } from "./child-processes.ts";
import { runLoad } from "./load.ts";
import type { LoadResult } from "./load-protocol.ts";
import { firstJsonLine, startWorker } from "./workers.ts";

/**
 * This machine's floors, measured in the same run as the provider, on the same core: what the provider's
 * numbers are divided by. They move with the machine and its neighbours; the ratios mostly don't.
 */

export interface Rs256Floor {
  sigsPerSecond: number;
  /** Signatures per second of CPU time: what the core could do if nothing else ran on it. */
  sigsPerCpuSecond: number;
  signatures: number;
  seconds: number;
  /** Share of the window other processes or the hypervisor took the core. */
  coreTaken: number;
}

/** RSA-2048 signatures per second on one core (node:crypto sign in a loop, after a warm-up). */
export async function measureRs256Floor(serverCpu: number, warmupSeconds = 1, seconds = 3): Promise<Rs256Floor> {
  const worker = startWorker(serverCpu, "rs256-signer.ts", [String(warmupSeconds), String(seconds), String(serverCpu)]);
  const result = await firstJsonLine<Rs256Floor>(worker, "RS256 signer");
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
