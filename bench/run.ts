import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { BenchError } from "./bench-error.ts";
import { checkFailures } from "./check.ts";
import { codeVersion } from "./code-version.ts";
import { assertPinnable } from "./cpu-pinning.ts";
import { optionsOrExitCode, parseOptions, USAGE } from "./options.ts";
import { preflight } from "./preflight.ts";
import { formatReport, writeResultsJson } from "./report.ts";
import type { BenchResults, ScenarioMeasurement } from "./results.ts";
import { proofCosts } from "./proof-cost.ts";
import { floorSeries, measureServer } from "./round-ratios.ts";
import { planRounds } from "./round-plan.ts";
import { runPlan, type Recorded } from "./run-plan.ts";
import { SCENARIOS, type FloorName, type Scenario } from "./scenarios.ts";
import { LDAP_LABEL, PEER_LABEL, startServers, stopServers } from "./servers.ts";
import { evaluateTargets } from "./targets.ts";
import { PROJECT_ROOT } from "./workers.ts";
import { measureWorkerScaling } from "./worker-scaling.ts";

/**
 * `npm run bench`: this machine's floors, the provider's endpoints and browser flows, and the ceilings
 * (minimal reference servers), measured in rounds in one run with the server side pinned to one core and
 * the load generators to another. See docs/performance.md.
 */
const RESULTS_FILE = join(PROJECT_ROOT, "bench", "results", "latest.json");

async function main(): Promise<number> {
  const parsed = optionsOrExitCode(() => parseOptions(process.argv.slice(2), process.env), USAGE);
  if ("exitCode" in parsed) return parsed.exitCode;
  const { options } = parsed;
  assertPinnable([options.serverCpu, options.loadCpu]);

  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      cores: availableParallelism(),
      loadAverage: loadavg(),
    },
    code: codeVersion(),
    options,
    floors: {},
    measurements: [],
    targets: [],
    notes: [],
  };
  const scenarios = options.only.map((name) => SCENARIOS[name]);
  const plan = planRounds(
    scenarios.map((s) => ({
      name: s.name,
      floor: s.floor,
      withCeiling: options.ceilings && s.ceiling !== undefined,
      // The peer has no directory: its login is compared with the provider's on users.yaml.
      withPeer: options.peer && s.kind !== "directory",
      withLdap: options.ldap && s.ldapDifference !== undefined,
      alternatesWith: s.alternatesWith,
      // DPoP's extra CPU per request is compared with one ES256 verification (targets.ts).
      ...(s.proof?.kind === "dpop" ? { costFloor: "es256" as const } : {}),
    })),
    options.rounds,
  );

  const servers = await startServers(scenarios, options, progress);
  let recorded: Recorded;
  try {
    const checked = await preflight(servers, scenarios);
    results.notes.push(...checked.notes);
    recorded = await runPlan(plan, { servers, requests: checked.requests, peerRequests: checked.peerRequests, options, progress });
  } finally {
    await stopServers(servers);
  }

  if (options.workers !== undefined) results.workerScaling = await measureWorkerScaling(options, progress);

  for (const [floor, samples] of Object.entries(recorded.floors) as Array<[FloorName, NonNullable<Recorded["floors"][FloorName]>]>) {
    results.floors[floor] = floorSeries(samples);
  }
  results.measurements = scenarios.map((scenario) => measure(scenario, recorded));
  results.proofCosts = proofCosts(results.measurements);
  results.targets = evaluateTargets(results.measurements, results.workerScaling, results.floors);
  // Others commit while the bench runs: say so when what the provider was started from is no longer what is there.
  const after = codeVersion();
  if (after.commit !== results.code.commit || after.uncommitted.join() !== results.code.uncommitted.join()) {
    results.notes.push(
      `the provider's code changed during the run (now ${after.commit}${after.uncommitted.length > 0 ? " with uncommitted changes" : ""}); the numbers are for the code named at the top, as it was when the provider started`,
    );
  }

  process.stdout.write(`\n${formatReport(results)}\n`);
  writeResultsJson(results, RESULTS_FILE);
  process.stdout.write(`\nresults written to ${RESULTS_FILE}\n`);

  if (!options.check) return 0;
  const failures = checkFailures(results);
  for (const failure of failures) process.stderr.write(`check failed: ${failure}\n`);
  return failures.length > 0 ? 1 : 0;
}

/** A scenario's rounds (and its ceiling's, the peer's and the LDAP provider's) against its floor's samples. */
function measure(scenario: Scenario, recorded: Recorded): ScenarioMeasurement {
  const floor = recorded.floors[scenario.floor] ?? [];
  const { name, label, floorOps } = scenario;
  const provider = measureServer(label, recorded.windows.get(`${name} provider`) ?? [], floor, floorOps);
  const ceilingWindows = recorded.windows.get(`${name} ceiling`);
  const ceiling = scenario.ceiling && ceilingWindows ? measureServer(scenario.ceiling.label, ceilingWindows, floor, floorOps) : undefined;
  const peerWindows = recorded.windows.get(`${name} peer`);
  const peer = peerWindows ? measureServer(PEER_LABEL, peerWindows, floor, floorOps) : undefined;
  const ldapWindows = recorded.windows.get(`${name} ldap`);
  const ldap = ldapWindows ? measureServer(`${label} ${LDAP_LABEL}`, ldapWindows, floor, floorOps) : undefined;
  return {
    ...provider,
    scenario: name,
    floor: scenario.floor,
    floorOps,
    ...(ceiling ? { ceiling } : {}),
    ...(peer ? { peer } : {}),
    ...(ldap ? { ldap } : {}),
  };
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
