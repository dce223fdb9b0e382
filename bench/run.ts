import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BenchError } from "./bench-error.ts";
import { assertPinnable } from "./cpu-pinning.ts";
import { Browser, DEMO_USERS, httpSender, logInAndRedeem, oneConnection, redeemCode, type Send } from "./code-flow.ts";
import { measureBareHttpFloor, measureLoopFloor, type LoopFloorName, type LoopSample } from "./floors.ts";
import { runFlowLoad, runLoad } from "./load.ts";
import { problems, type LoadRequest, type LoadResult } from "./load-protocol.ts";
import { parseOptions, UsageError, USAGE, type BenchOptions } from "./options.ts";
import { logTail, startProvider, type RunningProvider } from "./provider-process.ts";
import { formatReport, writeResultsJson } from "./report.ts";
import type { BenchResults, LoadMeasurement, ScenarioMeasurement } from "./results.ts";
import { SCENARIOS, type FlowScenario, type RequestScenario, type Scenario } from "./scenarios.ts";
import { evaluateTargets } from "./targets.ts";
import { PROJECT_ROOT } from "./workers.ts";

/**
 * `npm run bench`: this machine's floors and the provider's endpoints and browser flows, measured in one
 * run with the server side pinned to one core and the load generators to another. See docs/performance.md.
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
  const scenarios = options.only.map((name) => SCENARIOS[name]);

  // Each floor is measured close in time to what is divided by it.
  if (scenarios.some((e) => e.floor === "bare_http")) {
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
    const requests = await preflight(provider, scenarios);
    await measureScenarios(provider, scenarios, requests, options, results);
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
 * Loads each scenario in turn. A loop floor (RS256, scrypt) is sampled right before and right after each
 * scenario compared with it (the provider sits idle meanwhile), and the mean is used: drift shows as a spread.
 */
async function measureScenarios(
  provider: RunningProvider,
  scenarios: readonly Scenario[],
  requests: ReadonlyMap<Scenario, LoadRequest>,
  options: BenchOptions,
  results: BenchResults,
): Promise<void> {
  const loopSamples: Record<LoopFloorName, { samples: LoopSample[]; around: string[] }> = { rs256: { samples: [], around: [] }, scrypt: { samples: [], around: [] } };
  for (const scenario of scenarios) {
    const loopFloor = scenario.floor === "bare_http" ? undefined : loopSamples[scenario.floor];
    if (loopFloor) loopFloor.samples.push(await sampleLoopFloor(scenario.floor as LoopFloorName, options));
    const result = scenario.kind === "flow" ? await loadFlows(provider, scenario, options) : await loadRequest(provider, scenario, requests.get(scenario)!, options);
    if (loopFloor) {
      loopFloor.samples.push(await sampleLoopFloor(scenario.floor as LoopFloorName, options));
      loopFloor.around.push(scenario.label);
    }
    const { name, label, floor, floorOps } = scenario;
    results.measurements.push({ scenario: name, label, floor, floorOps, result, problems: problems(result), ratio: null, cpuRatio: null });
  }
  for (const [floor, { samples, around }] of Object.entries(loopSamples) as Array<[LoopFloorName, (typeof loopSamples)[LoopFloorName]]>) {
    if (samples.length === 0) continue;
    const mean = (f: (s: LoopSample) => number) => samples.reduce((sum, s) => sum + f(s), 0) / samples.length;
    results.floors[floor] = { perSecond: mean((s) => s.perSecond), perCpuSecond: mean((s) => s.perCpuSecond), samples, around };
  }
}

function loadRequest(provider: RunningProvider, scenario: RequestScenario, request: LoadRequest, options: BenchOptions): Promise<LoadResult> {
  const connections = scenario.connections === "token" ? options.tokenConnections : options.connections;
  progress(`${scenario.label}: ${connections} connections`);
  return runLoad({
    name: scenario.label,
    baseUrl: provider.baseUrl,
    request,
    connections,
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
    serverPid: provider.pid,
    serverCpu: options.serverCpu,
    loadCpu: options.loadCpu,
  });
}

function loadFlows(provider: RunningProvider, scenario: FlowScenario, options: BenchOptions): Promise<LoadResult> {
  const users = scenario.users === "login" ? options.loginUsers : options.flowUsers;
  progress(`${scenario.label}: ${users} virtual users`);
  return runFlowLoad({
    name: scenario.label,
    baseUrl: provider.baseUrl,
    flow: scenario.flow,
    users,
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
    serverPid: provider.pid,
    serverCpu: options.serverCpu,
    loadCpu: options.loadCpu,
  });
}

async function sampleLoopFloor(floor: LoopFloorName, options: BenchOptions): Promise<LoopSample> {
  progress(floor === "rs256" ? "floor: RS256 signatures on one core" : "floor: scrypt password verifications on one core");
  return measureLoopFloor(floor, options.serverCpu);
}

/**
 * One request (or one whole flow) per scenario before any load: a misconfiguration is one clear error,
 * not N failed requests. Returns the request each request scenario repeats (userinfo's carries a token).
 */
async function preflight(provider: RunningProvider, scenarios: readonly Scenario[]): Promise<Map<Scenario, LoadRequest>> {
  const requests = new Map<Scenario, LoadRequest>();
  const failed = (scenario: Scenario, problem: string) => new BenchError(`${scenario.label} preflight failed: ${problem}\nprovider log:\n${logTail(provider.logFile)}`);
  for (const scenario of scenarios) {
    try {
      if (scenario.kind === "flow") {
        await oneFlow(provider.baseUrl, scenario);
        continue;
      }
      const request = await scenario.prepare(provider.baseUrl);
      const { path, method, headers, body } = request;
      const response = await fetch(new URL(path, provider.baseUrl), { method, ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) });
      const problem = scenario.preflight(response.status, await response.text());
      if (problem) throw failed(scenario, problem);
      requests.set(scenario, request);
    } catch (error) {
      throw error instanceof BenchError ? error : failed(scenario, (error as Error).message);
    }
  }
  return requests;
}

/** One flow as the load generator runs it: sso logs in first, then authorizes on the session. */
async function oneFlow(baseUrl: string, scenario: FlowScenario): Promise<void> {
  const agent = oneConnection();
  try {
    const send: Send = httpSender(baseUrl, agent);
    const { browser } = await logInAndRedeem(send, DEMO_USERS[0], "openid profile");
    if (scenario.flow === "login") return;
    const answer = await new Browser(send, browser.jar).authorize({ scope: "openid profile", state: "preflight", nonce: "preflight" });
    if (!("code" in answer)) throw new Error("a browser with an SSO session was sent to the login page");
    await redeemCode(send, answer.code);
  } finally {
    agent.destroy();
  }
}

/** Each measurement against its floor (÷ the floor operations one unit needs), by rate and by CPU time per unit. */
function ratios(m: ScenarioMeasurement, results: BenchResults): Pick<ScenarioMeasurement, "ratio" | "cpuRatio"> {
  const none = { ratio: null, cpuRatio: null };
  if (m.problems.length > 0) return none;
  const { reqPerSec, serverCpuUsPerRequest } = m.result;
  if (m.floor !== "bare_http") {
    const floor = results.floors[m.floor];
    return floor ? { ratio: (reqPerSec * m.floorOps) / floor.perSecond, cpuRatio: (m.floorOps * 1e6) / floor.perCpuSecond / serverCpuUsPerRequest } : none;
  }
  const floor: LoadMeasurement | undefined = results.floors.bare_http;
  if (!floor || floor.problems.length > 0) return none;
  return { ratio: (reqPerSec * m.floorOps) / floor.result.reqPerSec, cpuRatio: (m.floorOps * floor.result.serverCpuUsPerRequest) / serverCpuUsPerRequest };
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
