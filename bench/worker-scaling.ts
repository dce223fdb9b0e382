import { availableParallelism } from "node:os";
import { randomBytes } from "node:crypto";
import { runLoad } from "./load.ts";
import { tokenUrlOf } from "./bench-clients.ts";
import { problems } from "./load-protocol.ts";
import { LATER_ROUND_WARMUP_SECONDS, type BenchOptions } from "./options.ts";
import { startProvider, type RunningProvider } from "./provider-process.ts";
import { startRedis } from "./redis-server.ts";
import { processTreeCpuSeconds } from "./process-cpu.ts";
import { median } from "./round-ratios.ts";
import { SCENARIOS, type RequestScenario } from "./scenarios.ts";
import type { WorkerScaling } from "./results.ts";

/**
 * client_credentials against a provider with one worker and one with `options.workers` (listen.workers),
 * both on one Redis store and allowed on every core, in alternating rounds: the ratio many ÷ one. The
 * load generator stays pinned to its core, which the workers share: it needs little CPU at these rates.
 * Run after the main measurements, whose servers are pinned to one core.
 */
export async function measureWorkerScaling(options: BenchOptions, progress: (message: string) => void): Promise<WorkerScaling> {
  const workers = options.workers!;
  const cores = Array.from({ length: availableParallelism() }, (_, i) => i).join(",");
  // The same connections for both: enough to keep every worker busy.
  const connections = options.tokenConnections * workers;
  const scenario = SCENARIOS.client_credentials as RequestScenario;
  progress(`workers: starting redis-server and providers with 1 and ${workers} workers on cores ${cores}`);
  const redis = await startRedis();
  // A network store needs an encryption key (given by reference, as the config requires); any will do here.
  process.env.PORTCULLIS_BENCH_ENCRYPTION_KEY = randomBytes(32).toString("base64");
  const edits = (n: number) => ({
    "store.url": `${redis.url}?prefix=bench-${n}`,
    "secrets.encryption_key": "${env:PORTCULLIS_BENCH_ENCRYPTION_KEY}",
    "listen.workers": n,
  });
  const started: RunningProvider[] = [];
  try {
    const one = await startProvider(cores, process.env, undefined, edits(1));
    started.push(one);
    const many = await startProvider(cores, process.env, undefined, edits(workers));
    started.push(many);
    const request = await scenario.prepare(one.baseUrl, tokenUrlOf("provider", one.baseUrl));
    const rounds: WorkerScaling["rounds"] = [];
    for (let round = 0; round < options.rounds; round++) {
      const warmupSeconds = round === 0 ? options.warmupSeconds : Math.min(options.warmupSeconds, LATER_ROUND_WARMUP_SECONDS);
      const window = async (server: RunningProvider, n: number) => {
        progress(`workers: client_credentials, ${n} worker${n === 1 ? "" : "s"}, round ${round + 1}, ${connections} connections`);
        const cpuBefore = processTreeCpuSeconds(server.pid);
        const started = performance.now();
        const result = await runLoad({
          name: `client_credentials, ${n} workers`,
          baseUrl: server.baseUrl,
          request,
          connections,
          warmupSeconds,
          durationSeconds: options.durationSeconds,
          serverPid: server.pid,
          serverCpu: options.serverCpu,
          loadCpu: options.loadCpu,
        });
        // Warm-up included: the cores the provider's processes got, on average, while loaded.
        const coresUsed = (processTreeCpuSeconds(server.pid) - cpuBefore) / ((performance.now() - started) / 1000);
        return { ...result, coresUsed };
      };
      const oneResult = await window(one, 1);
      const manyResult = await window(many, workers);
      const valid = problems(oneResult).length === 0 && problems(manyResult).length === 0;
      rounds.push({ one: oneResult, many: manyResult, ratio: valid ? manyResult.reqPerSec / oneResult.reqPerSec : null });
    }
    const ratios = rounds.flatMap((r) => (r.ratio === null ? [] : [r.ratio]));
    const found = rounds.flatMap((r, i) => [...problems(r.one), ...problems(r.many)].map((p) => `round ${i + 1}: ${p}`));
    return { workers, cores, connections, rounds, ratio: ratios.length === rounds.length ? median(ratios) : null, problems: found };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await redis.stop();
  }
}
