import type { LoadRequest } from "./endpoints.ts";

/** What the bench asks of the load generator worker (passed as JSON in argv). */
export interface LoadJob {
  url: string;
  request: LoadRequest;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** The server process, whose CPU use during the recorded window is reported. */
  serverPid: number;
  /** The core it is pinned to. */
  serverCpu: number;
}

/** One recorded load window, as the worker prints it. */
export interface LoadResult {
  connections: number;
  /** Length of the recorded window. */
  seconds: number;
  /** 2xx responses in the window. */
  ok: number;
  /** 2xx responses per second. */
  reqPerSec: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Non-2xx responses, errors and timeouts during the (unrecorded) warm-up. */
  warmupFailures: number;
  statusCodes: Record<string, number>;
  /** Server CPU time / wall time in the window: ~1.0 means its core was saturated. */
  serverCpu: number;
  /** Server CPU time per 2xx response, in µs: unlike req/s, barely moved by other processes taking the core. */
  serverCpuUsPerRequest: number;
  /** Time the server's main thread waited for its core (other processes or its own helper threads) / wall time. */
  serverWait: number;
  /** Share of the server core used by other processes or stolen by the hypervisor during the window. */
  coreTaken: number;
  /** The load generator's own CPU time / wall time: near 1.0 means it may be the limit, not the server. */
  loadCpu: number;
}

/** A run with any failed response is not a number: it is reported as invalid. */
export function problems(result: LoadResult): string[] {
  const found: string[] = [];
  if (result.non2xx > 0) found.push(`${result.non2xx} non-2xx (${JSON.stringify(result.statusCodes)})`);
  if (result.errors > 0) found.push(`${result.errors} connection errors`);
  if (result.timeouts > 0) found.push(`${result.timeouts} timeouts`);
  if (result.warmupFailures > 0) found.push(`${result.warmupFailures} failures during the warm-up`);
  if (result.ok === 0) found.push("no successful responses");
  return found;
}
