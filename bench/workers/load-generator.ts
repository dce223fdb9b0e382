import autocannon from "autocannon";
import { sampleCore, sampleCpu } from "../process-cpu.ts";
import type { LoadJob, LoadResult } from "../load-protocol.ts";

/**
 * The load generator, run pinned to its own core: autocannon's API, a warm-up run that is thrown away,
 * then the recorded run. Latencies are taken from autocannon's `response` events (fractional ms)
 * rather than its histogram, which has 1 ms resolution — too coarse for sub-millisecond endpoints.
 * argv[2]: a LoadJob as JSON. Prints one LoadResult as JSON.
 */
const job = JSON.parse(process.argv[2] ?? "") as LoadJob;

const options: autocannon.Options = {
  url: job.url,
  connections: job.connections,
  method: job.request.method,
  ...(job.request.headers ? { headers: job.request.headers } : {}),
  ...(job.request.body !== undefined ? { body: job.request.body } : {}),
  timeout: 10,
};

// Failures during the warm-up count too: a server that fails while warming up is not measured as healthy.
let warmupFailures = 0;
if (job.warmupSeconds > 0) {
  const warm = await autocannon({ ...options, duration: job.warmupSeconds });
  warmupFailures = warm.non2xx + warm.errors + warm.timeouts;
}

let latencies = new Float64Array(1 << 16);
let count = 0;
const serverBefore = sampleCpu(job.serverPid);
const coreBefore = sampleCore(job.serverCpu);
const selfCpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();

const instance = autocannon({ ...options, duration: job.durationSeconds });
instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
  if (statusCode < 200 || statusCode > 299) return;
  if (count === latencies.length) {
    const bigger = new Float64Array(latencies.length * 2);
    bigger.set(latencies);
    latencies = bigger;
  }
  latencies[count++] = responseTime;
});
const result = await instance;

const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
const serverAfter = sampleCpu(job.serverPid);
const coreAfter = sampleCore(job.serverCpu);
const serverCpuSeconds = serverAfter.cpuSeconds - serverBefore.cpuSeconds;
const othersSeconds = coreAfter.busySeconds - coreBefore.busySeconds - serverCpuSeconds;
const stealSeconds = coreAfter.stealSeconds - coreBefore.stealSeconds;
const self = process.cpuUsage(selfCpuBefore);
const sorted = latencies.subarray(0, count).sort();

const output: LoadResult = {
  connections: job.connections,
  seconds: result.duration,
  ok: result["2xx"],
  reqPerSec: result["2xx"] / result.duration,
  latencyMs: {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: count === 0 ? 0 : sorted[count - 1]!,
  },
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  warmupFailures,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  serverCpu: serverCpuSeconds / wallSeconds,
  serverCpuUsPerRequest: count === 0 ? 0 : (serverCpuSeconds / count) * 1e6,
  serverWait: (serverAfter.waitSeconds - serverBefore.waitSeconds) / wallSeconds,
  // /proc/stat counts in 10 ms ticks: a small negative remainder is rounding, not time.
  coreTaken: Math.max(0, othersSeconds + stealSeconds) / wallSeconds,
  loadCpu: (self.user + self.system) / 1e6 / wallSeconds,
};
process.stdout.write(`${JSON.stringify(output)}\n`);

/** Nearest-rank percentile of an ascending array. */
function percentile(values: Float64Array, q: number): number {
  if (values.length === 0) return 0;
  const rank = Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1));
  return values[rank]!;
}
