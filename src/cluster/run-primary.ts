import cluster, { type Worker } from "node:cluster";
import { pino } from "pino";
import { Counter, Registry } from "prom-client";
import { createLogger } from "../logging/create-logger.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import { startMetricsServer, type MetricsServer } from "../metrics/metrics-server.ts";
import { answerStoppedWorkers } from "./drain-together.ts";
import { forwardSignal } from "./forward-signal.ts";
import { RestartBackoff } from "./restart-backoff.ts";
import { WorkerMetrics } from "./worker-metrics.ts";
import type { StartSignals } from "../cli/support/start-signals.ts";

/**
 * Workers get this long after SIGTERM before they are killed: their own bounds on waiting for the other
 * workers to stop accepting (src/cluster/drain-together.ts, 1 s), on requests in flight
 * (src/http/start-provider.ts, 5 s) and on stray handles (2 s), with room to spare on a busy machine.
 */
const STOP_WITHIN_MS = 15_000;

export interface PrimaryOptions {
  config: LoadedConfig;
  workers: number;
  /** The process's signals, listened for since it began: SIGINT/SIGTERM stop the workers, SIGHUP is forwarded. */
  signals: StartSignals;
  stderr: NodeJS.WritableStream;
}

/**
 * The cluster's primary process (`listen.workers` above 1). It serves no requests: it forks the workers
 * (each runs `portcullis start` as a cluster worker; node:cluster shares the port among them), replaces
 * a worker that exits unasked (with a backoff), forwards SIGHUP to every worker, serves the metrics of
 * all of them on `metrics.listen`, and on SIGINT/SIGTERM sends every worker SIGTERM (each stops
 * accepting, and drains its connections once none accepts: src/cluster/drain-together.ts) and returns 0
 * once all have exited. Returns 1 when the first workers fail before any listens (a busy port, a store
 * that is down): they said why.
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  const { workers, stderr } = options;
  /*
   * The primary's own events — workers started, a worker that exited unasked and its replacement, the
   * shutdown — go to the operational log (JSON lines on stdout, as the workers write theirs), so whoever
   * watches that sees a crashing worker; the same events as text on stderr, with the banner, for a person.
   * Synchronous: a handful of lines in the primary's life, none to be lost when it exits.
   */
  const logger = createLogger(options.config.provider.logging.level, pino.destination({ dest: 1, sync: true })).child({
    role: "primary",
    pid: process.pid,
  });
  const tell = (text: string, level: "info" | "warn", fields: object, msg: string) => {
    stderr.write(`${text}\n`);
    logger[level](fields, msg);
  };
  const metricsSettings = options.config.provider.metrics;
  const own = new Registry();
  const restarts = new Counter({
    name: "portcullis_worker_restarts_total",
    help: "Workers the primary replaced after they exited unasked",
    registers: [own],
  });
  let metricsServer: MetricsServer | undefined;
  if (metricsSettings?.listen !== undefined) {
    // Before the first fork, so that it sees every worker's "listening".
    metricsServer = await startMetricsServer(metricsSettings.listen, metricsSettings.token, new WorkerMetrics(own));
    stderr.write(`  metrics: ${metricsServer.url} (all workers)\n`);
  }

  const backoff = new RestartBackoff();
  const startedAt = new Map<number, number>();
  const pending = new Set<NodeJS.Timeout>();
  let stopping = false;
  let listened = false;
  const fork = () => startedAt.set(cluster.fork().id, Date.now());
  cluster.on("listening", () => (listened = true));
  const failedToStart = new Promise<number>((resolve) => {
    cluster.on("exit", (worker: Worker, code: number | null, signal: string | null) => {
      if (stopping) return;
      if (!listened) return resolve(1);
      const delay = backoff.next(Date.now() - (startedAt.get(worker.id) ?? 0));
      restarts.inc();
      // exit_code, not code: the logger redacts any field named code (authorization codes).
      const fields = { worker: worker.id, worker_pid: worker.process.pid, exit_code: code, signal, restart_in_ms: delay };
      tell(
        `portcullis: worker ${worker.id} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}); starting a replacement in ${delay} ms`,
        "warn",
        fields,
        "worker exited unasked",
      );
      const timer = setTimeout(() => {
        pending.delete(timer);
        if (!stopping) fork();
      }, delay);
      pending.add(timer);
    });
  });
  options.signals.onHangup(() => forwardSignal(cluster.workers, "SIGHUP"));
  answerStoppedWorkers();
  tell(`portcullis: primary process ${process.pid} starting ${workers} workers`, "info", { workers }, "primary starting workers");
  for (let i = 0; i < workers; i++) fork();

  const shutdown = options.signals.shutdown.then((signal) => {
    tell(`${signal} received, stopping the workers`, "info", { signal }, "primary stopping the workers");
    return 0;
  });
  const outcome = await Promise.race([shutdown, failedToStart]);
  stopping = true;
  for (const timer of pending) clearTimeout(timer);
  await stopWorkers();
  await metricsServer?.close();
  if (outcome === 0) logger.info("primary stopped: every worker has exited");
  else logger.error("primary stopping: the first workers exited before any listened");
  return outcome;
}

/** SIGTERM to every worker; SIGKILL to any still running after STOP_WITHIN_MS. Resolves when all have exited. */
async function stopWorkers(): Promise<void> {
  const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  const exited = live.map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once("exit", () => resolve()))));
  for (const worker of live) worker.process.kill("SIGTERM");
  const deadline = setTimeout(() => live.forEach((worker) => worker.isDead() || worker.process.kill("SIGKILL")), STOP_WITHIN_MS);
  await Promise.all(exited);
  clearTimeout(deadline);
}
