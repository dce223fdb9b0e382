import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BenchError } from "./bench-error.ts";
import { assertPinnable } from "./cpu-pinning.ts";
import { ENDPOINTS, type Endpoint } from "./endpoints.ts";
import { measureBareHttpFloor, measureRs256Floor, type Rs256Floor } from "./floors.ts";
import { runLoad } from "./load.ts";
import { problems } from "./load-protocol.ts";
import { parseOptions, UsageError, USAGE, type BenchOptions } from "./options.ts";
import { logTail, startProvider, type RunningProvider } from "./provider-process.ts";
import { formatReport, writeResultsJson } from "./report.ts";
import type { BenchResults, EndpointMeasurement, LoadMeasurement } from "./results.ts";
import { evaluateTargets } from "./targets.ts";
import { PROJECT_ROOT } from "./workers.ts";

/**
 * `npm run bench`: this machine's floors and the provider's endpoints, measured in one run with the
 * server side pinned to one core and autocannon to another. See docs/performance.md.
 */
const RESULTS_FILE = join(PROJECT_ROOT, "bench", "results", "latest.json");

async function main(): Promise<number> {
  let parsed: BenchOptions | "help";
  try {
    parsed = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))) throw error;
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  const options = parsed;
  assertPinnable([options.serverCpu, options.loadCpu]);

  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpuModel: cpus()[0]?.model.trim() ?? "unknown", cores: availableParallelism(), loadAverage: loadavg() },
    options,
    floors: {},
    measurements: [],
    targets: [],
  };
  const endpoints = options.only.map((name) => ENDPOINTS[name]);

  // Each floor is measured close in time to what is divided by it.
  if (endpoints.some((e) => e.floor === "bare_http")) {
    progress(`floor: bare node:http, ${options.connections} connections`);
    const result = await measureBareHttpFloor({
      serverCpu: options.serverCpu,
      loadCpu: options.loadCpu,
      connections: options.connections,
      warmupSeconds: options.warmupSeconds,
      durationSeconds: options.durationSeconds,
    });
    results.floors.bare_http = { result, problems: problems(result) };
  }

  progress("starting the provider");
  const provider = await startProvider(options.serverCpu, process.env);
  try {
    await preflight(provider, endpoints);
    await measureEndpoints(provider, endpoints, options, results);
  } finally {
    await provider.stop();
  }

  for (const m of results.measurements) Object.assign(m, ratios(m, results));
  results.targets = evaluateTargets(results.measurements);

  process.stdout.write(`\n${formatReport(results)}\n`);
  writeResultsJson(results, RESULTS_FILE);
  process.stdout.write(`\nresults written to ${RESULTS_FILE}\n`);

  const invalid = [results.floors.bare_http, ...results.measurements].some((m) => m !== undefined && m.problems.length > 0);
  const failed = invalid || results.targets.some((t) => t.status !== "PASS");
  return options.check && failed ? 1 : 0;
}

/**
 * Loads each endpoint in turn. The RS256 floor is measured right before and right after
 * client_credentials (the provider sits idle meanwhile), and the mean is used: drift shows as a spread.
 */
async function measureEndpoints(provider: RunningProvider, endpoints: readonly Endpoint[], options: BenchOptions, results: BenchResults): Promise<void> {
  const rs256Samples: Rs256Floor[] = [];
  for (const endpoint of endpoints) {
    if (endpoint.floor === "rs256") rs256Samples.push(await rs256Floor(options));
    const connections = endpoint.connections === "token" ? options.tokenConnections : options.connections;
    progress(`${endpoint.name}: ${connections} connections`);
    const result = await runLoad({
      name: endpoint.name,
      baseUrl: provider.baseUrl,
      request: endpoint.request,
      connections,
      warmupSeconds: options.warmupSeconds,
      durationSeconds: options.durationSeconds,
      serverPid: provider.pid,
      serverCpu: options.serverCpu,
      loadCpu: options.loadCpu,
    });
    if (endpoint.floor === "rs256") rs256Samples.push(await rs256Floor(options));
    results.measurements.push({ endpoint: endpoint.name, floor: endpoint.floor, result, problems: problems(result), ratio: null, cpuRatio: null });
  }
  if (rs256Samples.length > 0) {
    const mean = (f: (s: Rs256Floor) => number) => rs256Samples.reduce((sum, s) => sum + f(s), 0) / rs256Samples.length;
    results.floors.rs256 = { sigsPerSecond: mean((s) => s.sigsPerSecond), sigsPerCpuSecond: mean((s) => s.sigsPerCpuSecond), samples: rs256Samples };
  }
}

async function rs256Floor(options: BenchOptions): Promise<Rs256Floor> {
  progress("floor: RS256 signatures on one core");
  return measureRs256Floor(options.serverCpu);
}

/** One request per endpoint before any load: a misconfiguration is one clear error, not N failed requests. */
async function preflight(provider: RunningProvider, endpoints: readonly Endpoint[]): Promise<void> {
  for (const endpoint of endpoints) {
    const { path, method, headers, body } = endpoint.request;
    const response = await fetch(new URL(path, provider.baseUrl), { method, ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) });
    const problem = endpoint.preflight(response.status, await response.text());
    if (problem) throw new BenchError(`${endpoint.name} preflight failed: ${problem}\nprovider log:\n${logTail(provider.logFile)}`);
  }
}

/** Each measurement against its floor, by req/s and by CPU time per unit of work. */
function ratios(m: EndpointMeasurement, results: BenchResults): Pick<EndpointMeasurement, "ratio" | "cpuRatio"> {
  const none = { ratio: null, cpuRatio: null };
  if (m.problems.length > 0) return none;
  const { reqPerSec, serverCpuUsPerRequest } = m.result;
  if (m.floor === "rs256") {
    const floor = results.floors.rs256;
    return floor ? { ratio: reqPerSec / floor.sigsPerSecond, cpuRatio: 1e6 / floor.sigsPerCpuSecond / serverCpuUsPerRequest } : none;
  }
  const floor: LoadMeasurement | undefined = results.floors.bare_http;
  if (!floor || floor.problems.length > 0) return none;
  return { ratio: reqPerSec / floor.result.reqPerSec, cpuRatio: floor.result.serverCpuUsPerRequest / serverCpuUsPerRequest };
}

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const text = error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`bench failed: ${text}\n`);
    // process.exit runs the exit hooks: child processes are killed, temp dirs removed.
    process.exit(1);
  },
);
