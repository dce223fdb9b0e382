import { sampleCore, sampleCpu } from "./process-cpu.ts";
import type { LoadResult } from "./load-protocol.ts";

/** The CPU side of a LoadResult: how the server, its core and the load generator spent the window. */
export type WindowCpu = Pick<LoadResult, "serverCpu" | "serverCpuUsPerRequest" | "serverWait" | "coreTaken" | "loadCpu">;

/**
 * One recorded window, as both load generators (autocannon's and the code-flow one) sample it: the
 * server's CPU and run-queue wait from /proc, the server core's total use (what other processes took),
 * and the generator's own CPU. Open it when the window starts, close it when it ends.
 */
export function openWindow(serverPid: number, serverCpu: number): { close(units: number): WindowCpu & { wallSeconds: number } } {
  const serverBefore = sampleCpu(serverPid);
  const coreBefore = sampleCore(serverCpu);
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  return {
    /** `units`: what the server did in the window (2xx responses, or completed flows). */
    close(units) {
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const serverAfter = sampleCpu(serverPid);
      const coreAfter = sampleCore(serverCpu);
      const self = process.cpuUsage(selfBefore);
      const serverCpuSeconds = serverAfter.cpuSeconds - serverBefore.cpuSeconds;
      const othersSeconds = coreAfter.busySeconds - coreBefore.busySeconds - serverCpuSeconds;
      const stealSeconds = coreAfter.stealSeconds - coreBefore.stealSeconds;
      return {
        wallSeconds,
        serverCpu: serverCpuSeconds / wallSeconds,
        serverCpuUsPerRequest: units === 0 ? 0 : (serverCpuSeconds / units) * 1e6,
        serverWait: (serverAfter.waitSeconds - serverBefore.waitSeconds) / wallSeconds,
        // /proc/stat counts in 10 ms ticks: a small negative remainder is rounding, not time.
        coreTaken: Math.max(0, othersSeconds + stealSeconds) / wallSeconds,
        loadCpu: (self.user + self.system) / 1e6 / wallSeconds,
      };
    },
  };
}

/** A growable list of latencies (ms) with nearest-rank percentiles. */
export class Latencies {
  private values = new Float64Array(1 << 12);
  count = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = ms;
  }

  summary(): LoadResult["latencyMs"] {
    const sorted = this.values.subarray(0, this.count).sort();
    return {
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: this.count === 0 ? 0 : sorted[this.count - 1]!,
    };
  }
}

/** Nearest-rank percentile of an ascending array. */
function percentile(values: Float64Array, q: number): number {
  if (values.length === 0) return 0;
  const rank = Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1));
  return values[rank]!;
}
