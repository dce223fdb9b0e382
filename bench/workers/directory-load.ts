import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ResultCodeError } from "ldapts";
import { checkPerson, closeConnections, openConnections, UnexpectedAnswer } from "../directory-check.ts";
import type { DirectoryJob, LoadResult } from "../load-protocol.ts";
import { Latencies, openWindow } from "../window.ts";

/**
 * The directory load generator, run pinned to its own core: `users` virtual users, each looping checks
 * of the directory as a login with a cold cache makes them (directory-check.ts: a search as the service
 * account, a bind as the person), the people taken in turn. The server measured is slapd: its CPU time
 * per check is the directory's own cost. The load runs without a break from the warm-up into the
 * recorded window. argv[2]: a DirectoryJob as JSON. Prints one LoadResult (unit "check") as JSON.
 */
const job = JSON.parse(process.argv[2] ?? "") as DirectoryJob;
/** After a failed check, before the next: a dead server must not turn the loop into a busy spin. */
const FAILURE_PAUSE_MS = 10;

type Phase = "warmup" | "window" | "drain";
let phase: Phase = "warmup";
const latencies = new Latencies();
const counts = { ok: 0, unexpected: 0, errors: 0, timeouts: 0, warmupFailures: 0 };

async function loop(index: number): Promise<void> {
  let connections = openConnections(job);
  for (let n = index; phase !== "drain"; n++) {
    const started = performance.now();
    try {
      await checkPerson(job, connections, job.people[n % job.people.length]!);
      if (phase === "window") {
        counts.ok++;
        latencies.add(performance.now() - started);
      }
    } catch (error) {
      countFailure(error);
      // A connection that failed may be half-open: new ones, bound again, as the provider's pool does.
      await closeConnections(connections);
      connections = openConnections(job);
      await sleep(FAILURE_PAUSE_MS);
    }
  }
  await closeConnections(connections);
}

function countFailure(error: unknown): void {
  if (phase === "warmup") counts.warmupFailures++;
  if (phase !== "window") return;
  if (error instanceof UnexpectedAnswer || error instanceof ResultCodeError) counts.unexpected++;
  else if (/time ?out/i.test((error as Error).message)) counts.timeouts++;
  else counts.errors++;
  // The first few, so an invalid run says why.
  if (counts.unexpected + counts.errors + counts.timeouts <= 3) process.stderr.write(`check failed: ${(error as Error).message}\n`);
}

const loops = Array.from({ length: job.users }, (_, i) => loop(i));
await sleep(job.warmupSeconds * 1000);
phase = "window";
const recorded = openWindow(job.serverPid, job.serverCpu);
await sleep(job.durationSeconds * 1000);
const { wallSeconds, ...cpu } = recorded.close(counts.ok);
phase = "drain";
await Promise.all(loops);

const output: LoadResult = {
  unit: "check",
  connections: job.users,
  seconds: wallSeconds,
  ok: counts.ok,
  reqPerSec: counts.ok / wallSeconds,
  latencyMs: latencies.summary(),
  non2xx: counts.unexpected,
  errors: counts.errors,
  timeouts: counts.timeouts,
  warmupFailures: counts.warmupFailures,
  statusCodes: {},
  ...cpu,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
