import type { Worker } from "node:cluster";

/**
 * Sends `signal` to every live worker process. The primary forwards SIGHUP this way, so that each
 * worker reloads its own configuration exactly as a single provider process does on SIGHUP.
 */
export function forwardSignal(workers: NodeJS.Dict<Worker> | undefined, signal: NodeJS.Signals): number {
  let sent = 0;
  for (const worker of Object.values(workers ?? {})) {
    if (worker && !worker.isDead() && worker.process.kill(signal)) sent++;
  }
  return sent;
}
