import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { BenchError } from "./bench-error.ts";

const TASKSET = "/usr/bin/taskset";

/**
 * A command line that runs `node args…` pinned to one core (or a taskset list of cores, "0,1") with
 * taskset. taskset execs the command, so the child's pid is node's own pid (the bench reads its CPU time
 * from /proc by that pid).
 */
export function pinnedNode(cpu: number | string, args: readonly string[], node = process.execPath): { command: string; args: string[] } {
  return { command: TASKSET, args: ["-c", String(cpu), node, ...args] };
}

/** Fails early, with a readable reason, when the two cores cannot be pinned on this machine. */
export function assertPinnable(cpus: readonly number[]): void {
  const probe = spawnSync(TASKSET, ["-p", String(process.pid)], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new BenchError(
      `${TASKSET} is needed to pin the server and the load generator to separate cores (${probe.error?.message ?? probe.stderr.trim()})`,
    );
  }
  const cores = availableParallelism();
  for (const cpu of cpus) {
    if (cpu >= cores) throw new BenchError(`core ${cpu} is not available: this machine has ${cores} (see --server-cpu / --load-cpu)`);
  }
}
