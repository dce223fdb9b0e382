import { exited } from "./child-processes.ts";
import { problems, type LoadResult } from "./load-protocol.ts";
import type { FloorSample } from "./results.ts";
import type { LoopSample } from "./workers/tight-loop.ts";
import { firstJsonLine, startWorker } from "./workers.ts";

/**
 * This machine's floors, measured in the same run as the provider, on the same core, around every round
 * of the scenarios compared with them: what the provider's numbers are divided by. They move with the
 * machine and its neighbours; the ratios mostly don't.
 */

/** The floors measured as a tight loop of one operation on the server core. */
export type LoopFloorName = "rs256" | "scrypt" | "es256";

export type { LoopSample };

/**
 * A sample is a fresh process: 0.5 s of warm-up is plenty for a loop that spends its time in OpenSSL. The
 * windows are short so that the floor is sampled close in time to each load window.
 */
const LOOP_WORKERS: Record<LoopFloorName, { script: string; what: string; warmupSeconds: number; seconds: number }> = {
  /** RSA-2048 signatures (node:crypto sign in a loop). */
  rs256: { script: "rs256-signer.ts", what: "RS256 signer", warmupSeconds: 0.5, seconds: 2 },
  /** P-256 signature verifications (node:crypto verify in a loop): what one DPoP proof's signature costs. */
  es256: { script: "es256-verifier.ts", what: "ES256 verifier", warmupSeconds: 0.5, seconds: 2 },
  /** scrypt password verifications with the demo users' parameters: ~11 per second, so a longer window. */
  scrypt: { script: "scrypt-hasher.ts", what: "scrypt hasher", warmupSeconds: 0.5, seconds: 3 },
};

/** One sample of a loop floor on `serverCpu`: a warm-up, then the measured window. */
export async function sampleLoopFloor(floor: LoopFloorName, serverCpu: number): Promise<FloorSample> {
  const { script, what, warmupSeconds, seconds } = LOOP_WORKERS[floor];
  const worker = startWorker(serverCpu, script, [String(warmupSeconds), String(seconds), String(serverCpu)]);
  const sample = await firstJsonLine<LoopSample>(worker, what);
  await exited(worker);
  return { perSecond: sample.perSecond, cpuUsPerOp: 1e6 / sample.perCpuSecond, coreTaken: sample.coreTaken, problems: [], raw: sample };
}

/** One load window of the bare node:http server (workers/bare-http-server.ts) as a floor sample. */
export function bareHttpFloorSample(result: LoadResult): FloorSample {
  return {
    perSecond: result.reqPerSec,
    cpuUsPerOp: result.serverCpuUsPerRequest,
    coreTaken: result.coreTaken,
    problems: problems(result),
    raw: result,
  };
}
