import { availableParallelism } from "node:os";

/** `listen.workers` as a number of processes: `auto` is one per core the process may use. */
export function workerCount(workers: "auto" | number): number {
  return workers === "auto" ? availableParallelism() : workers;
}
