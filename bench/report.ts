import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { LATER_ROUND_WARMUP_SECONDS } from "./options.ts";
import { fmt, NOISY_WAIT, pct, range, table } from "./report-format.ts";
import type { BenchResults, FloorSeries, ScenarioMeasurement, ServerMeasurement } from "./results.ts";
import { median } from "./round-ratios.ts";
import { SCENARIOS, type FloorName } from "./scenarios.ts";
import { proofCostSection } from "./proof-cost-report.ts";
import { targetsSection } from "./targets-report.ts";
import { formatTimeline } from "./timeline.ts";
import { formatWorkerScaling } from "./worker-scaling-report.ts";

const FLOOR: Record<FloorName, { label: string; row: string; unit: string }> = {
  rs256: { label: "RS256", row: "floor: RS256 signatures/s", unit: "sigs/s" },
  es256: { label: "ES256", row: "ES256 verifications/s", unit: "verifications/s" },
  scrypt: { label: "scrypt", row: "floor: scrypt verifications/s", unit: "verifications/s" },
  bare_http: { label: "node:http", row: "floor: bare node:http", unit: "req/s" },
};

/** A floor sample this far below its floor's median is pointed out, with the rounds it inflates. */
const LOW_FLOOR_SAMPLE = 0.15;
/** The NOISY warning names this many of the noisiest windows; the rest are counted. */
const MAX_NOISY_LISTED = 4;
/** Above this, the load generator may be what limits the number. */
const BUSY_LOAD_GENERATOR = 0.9;

/**
 * The human-readable report: floors and single-request scenarios in one table, the code flows (units of
 * several requests) in a second, each row summarising its rounds (medians); each round's ratio; warnings;
 * then the targets: Portcullis ÷ its ceiling and ÷ the peer, both servers' rates side by side.
 */
export function formatReport(results: BenchResults): string {
  const o = results.options;
  const { commit, uncommitted } = results.code;
  const out: string[] = [
    `Portcullis bench ${results.date}  node ${results.machine.node}  ${results.machine.cpuModel} (${results.machine.cores} cores)`,
    `code ${commit}${uncommitted.length > 0 ? ` with uncommitted changes to ${abbreviate(uncommitted)}` : ""}`,
    `server on core ${o.serverCpu}, load generator on core ${o.loadCpu}; ${o.rounds} round${o.rounds === 1 ? "" : "s"} per scenario, ` +
      `${o.durationSeconds} s recorded per window after ${o.warmupSeconds} s warm-up (later rounds ${Math.min(o.warmupSeconds, LATER_ROUND_WARMUP_SECONDS)} s); ` +
      `load average at start ${results.machine.loadAverage.map((l) => l.toFixed(2)).join(" ")}`,
    "Each row is the median over its rounds (failed: the sum; core taken, load CPU: the highest). A round's ratio divides by the floor samples right before and after it.",
    "",
  ];

  const rows = (m: ScenarioMeasurement) => serversOf(m).map((s) => measurementRow(s, m));
  const requests = results.measurements.filter((m) => !isFlow(m));
  const flows = results.measurements.filter(isFlow);
  const head = (unit: string, who: string) => [
    "",
    who,
    `${unit}/s`,
    "p50 ms",
    "p99 ms",
    "failed",
    "server CPU",
    "core taken",
    "load CPU",
    `CPU µs/${unit}`,
    "ratio",
    "range",
    "ratio/CPU",
  ];
  const floorRows = (["rs256", "es256", "scrypt", "bare_http"] as const).flatMap((f) =>
    results.floors[f] ? [floorRow(f, results.floors[f])] : [],
  );
  out.push(...table([head("req", "conns"), ...floorRows, ...requests.flatMap(rows)]));
  const directory = requests.find((m) => SCENARIOS[m.scenario].kind === "directory");
  if (directory)
    out.push(
      `  ${directory.label}: a unit is one check as a login with a cold cache makes it (a search as the service account, a bind as the`,
      "  person), by virtual users straight against slapd: its server CPU is slapd's, the directory's own cost per check.",
    );
  out.push("");
  if (flows.length > 0) {
    out.push(...table([head("flow", "users"), ...flows.flatMap(rows)]));
    for (const m of flows.flatMap(serversOf)) {
      const steps = Object.keys(m.rounds[0]?.result.steps ?? {});
      if (m.problems.length > 0 || steps.length === 0) continue;
      const perStep = (step: string, q: "p50" | "p99") => fmt(median(m.rounds.map((r) => r.result.steps?.[step]?.[q] ?? 0)), 2);
      out.push(
        `  ${m.label}, per request: ${steps.map((step) => `${step} p50 ${perStep(step, "p50")} / p99 ${perStep(step, "p99")} ms`).join(", ")}`,
      );
      m.rounds.forEach((r, i) => {
        const line = formatTimeline(r.result.timeline, "flow");
        if (line) out.push(`  ${m.label}, round ${i + 1}, ${line}`);
      });
    }
    out.push("");
  }

  out.push(...roundsSection(results), "");
  out.push(...warnings(results));
  out.push("", ...targetsSection(results));
  out.push(...proofCostSection(results));
  const workersTarget = results.targets.find((t) => t.against === "one worker");
  if (results.workerScaling && workersTarget) out.push("", ...formatWorkerScaling(results.workerScaling, workersTarget));
  return out.join("\n");
}

export function writeResultsJson(results: BenchResults, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

function isFlow(m: ScenarioMeasurement): boolean {
  return SCENARIOS[m.scenario].kind === "flow";
}

/** Each round's ratio, and each floor's samples in the order taken: drift shows here. */
function roundsSection(results: BenchResults): string[] {
  const lines = ["Rounds (ratio of each round, in order):"];
  const width = Math.max(...results.measurements.flatMap((m) => serversOf(m).map((s) => s.label.length)));
  for (const m of results.measurements) {
    for (const s of serversOf(m)) {
      lines.push(`  ${s.label.padEnd(width)}  ${s.rounds.map((r) => (r.ratio === null ? "INVALID" : fmt(r.ratio, 2))).join("  ")}`);
    }
  }
  for (const floor of ["rs256", "es256", "scrypt", "bare_http"] as const) {
    const f = results.floors[floor];
    if (!f) continue;
    const digits = (f.perSecond?.median ?? 0) < 100 ? 1 : 0;
    const drift = f.perSecond
      ? `; range ${percentOf(f.perSecond.min, f.perSecond.median)} to ${percentOf(f.perSecond.max, f.perSecond.median)} of the median`
      : "";
    lines.push(
      `  ${FLOOR[floor].label} floor samples (${FLOOR[floor].unit}): ${f.samples.map((s) => (s.problems.length > 0 ? "INVALID" : fmt(s.perSecond, digits))).join(", ")}${drift}`,
    );
  }
  return lines;
}

/** The servers measured for a scenario: the provider, its ceiling, the peer, the provider on LDAP. */
function serversOf(m: ScenarioMeasurement): ServerMeasurement[] {
  return [m, ...(m.ceiling ? [m.ceiling] : []), ...(m.peer ? [m.peer] : []), ...(m.ldap ? [m.ldap] : [])];
}

/** What makes a number in this run less trustworthy than it looks. */
function warnings(results: BenchResults): string[] {
  const lines: string[] = [];
  const servers = results.measurements.flatMap(serversOf);
  for (const s of servers) {
    if (s.problems.length > 0) lines.push(`INVALID ${s.label}: ${s.problems.join("; ")} — not a number`);
  }
  const floors = Object.entries(results.floors) as Array<[FloorName, FloorSeries]>;
  for (const [floor, f] of floors) {
    f.samples.forEach((s, i) => {
      if (s.problems.length > 0) lines.push(`INVALID ${FLOOR[floor].label} floor sample ${i + 1}: ${s.problems.join("; ")}`);
    });
  }
  const windows = [
    ...servers.flatMap((s) => s.rounds.map((r) => ({ what: `${s.label} round ${r.round}`, taken: r.result.coreTaken }))),
    ...floors.flatMap(([floor, f]) =>
      f.samples.map((s, i) => ({ what: `${FLOOR[floor].label} floor sample ${i + 1}`, taken: s.coreTaken })),
    ),
  ];
  const noisy = windows.filter((w) => w.taken > NOISY_WAIT).sort((a, b) => b.taken - a.taken);
  if (noisy.length > 0) {
    const worst = noisy.slice(0, MAX_NOISY_LISTED).map((w) => `${w.what} ${pct(w.taken)}`);
    lines.push(
      `NOISY: other processes took more than ${pct(NOISY_WAIT)} of the server core in ${noisy.length} of ${windows.length} windows and floor samples ` +
        `(${noisy.length > MAX_NOISY_LISTED ? "the worst: " : ""}${worst.join(", ")}); the rounds' range shows how far that moved the ratios, ` +
        `ratio/CPU is the steadier cross-check — rerun when the machine is quieter`,
    );
  }
  lines.push(...lowFloorSamples(results));
  const loads: Array<[string, number[]]> = [
    ...servers.map((s) => [s.label, s.rounds.map((r) => r.result.loadCpu)] as [string, number[]]),
    ...(results.floors.bare_http
      ? [["bare node:http", results.floors.bare_http.samples.map((s) => ("loadCpu" in s.raw ? s.raw.loadCpu : 0))] as [string, number[]]]
      : []),
  ];
  for (const [name, cpu] of loads) {
    const busy = cpu.filter((c) => c > BUSY_LOAD_GENERATOR);
    if (busy.length > 0) {
      lines.push(
        `note: the load generator used up to ${pct(Math.max(...busy))} of its core during ${name} (${busy.length} of ${cpu.length} windows): that number may be partly the generator's limit`,
      );
    }
  }
  lines.push(...results.notes.map((n) => `note: ${n}`));
  return lines;
}

/**
 * Floor samples well below their floor's median. The slowdowns of this VM's host do not show in `core
 * taken` (the guest sees its process running, only slower), and a floor sample caught in one inflates
 * both rounds it closes and opens, which a median of three rounds cannot absorb.
 */
function lowFloorSamples(results: BenchResults): string[] {
  const lines: string[] = [];
  for (const [floor, f] of Object.entries(results.floors) as Array<[FloorName, FloorSeries]>) {
    if (!f.perSecond) continue;
    const median = f.perSecond.median;
    f.samples.forEach((sample, i) => {
      if (sample.problems.length > 0 || sample.perSecond >= median * (1 - LOW_FLOOR_SAMPLE)) return;
      const divided = results.measurements
        .filter((m) => m.floor === floor)
        .flatMap(serversOf)
        .flatMap((s) => {
          const rounds = s.rounds.filter((r) => r.floorSamples.includes(i)).map((r) => r.round);
          return rounds.length === 0 ? [] : [`${s.label} round${rounds.length > 1 ? "s" : ""} ${rounds.join(" and ")}`];
        });
      // A cost floor (ES256) divides no window: only its own number is off, and CPU per operation hardly moves.
      if (divided.length === 0) return;
      lines.push(
        `note: ${FLOOR[floor].label} floor sample ${i + 1} (${fmt(sample.perSecond, sample.perSecond < 100 ? 1 : 0)} ${FLOOR[floor].unit}) is ` +
          `${percentOf(sample.perSecond, median).slice(1)} below the floor's median, with ${pct(sample.coreTaken)} of the core taken: a slowdown of the machine; ` +
          `the ratios of ${divided.join(", ")} read high`,
      );
    });
  }
  return lines;
}

function floorRow(floor: FloorName, f: FloorSeries): string[] {
  const taken = Math.max(...f.samples.map((s) => s.coreTaken));
  const valid = f.perSecond !== null;
  const rate = valid ? fmt(f.perSecond!.median, f.perSecond!.median < 100 ? 1 : 0) : "INVALID";
  const cpuUs = valid ? fmt(f.cpuUsPerOp!.median, 0) : "-";
  if (floor !== "bare_http") return [FLOOR[floor].row, "-", rate, "-", "-", "-", "100%", pct(taken), "-", cpuUs, "-", "-", "-"];
  const windows = f.samples.map((s) => s.raw).filter((r) => "reqPerSec" in r);
  const med = (pick: (r: (typeof windows)[number]) => number) => median(windows.map(pick));
  return [
    FLOOR[floor].row,
    String(windows[0]?.connections ?? "-"),
    rate,
    valid
      ? fmt(
          med((r) => r.latencyMs.p50),
          2,
        )
      : "-",
    valid
      ? fmt(
          med((r) => r.latencyMs.p99),
          2,
        )
      : "-",
    String(windows.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts + r.warmupFailures, 0)),
    pct(med((r) => r.serverCpu)),
    pct(taken),
    pct(Math.max(...windows.map((r) => r.loadCpu))),
    cpuUs,
    "-",
    "-",
    "-",
  ];
}

function measurementRow(s: ServerMeasurement, m: ScenarioMeasurement): string[] {
  const results = s.rounds.map((r) => r.result);
  const valid = s.problems.length === 0 && results.length > 0;
  // An invalid measurement shows its failures and conditions, but no performance numbers.
  const med = (pick: (r: (typeof results)[number]) => number, digits: number) => (valid ? fmt(median(results.map(pick)), digits) : "-");
  const vs = ` × ${FLOOR[m.floor].label}${m.floorOps > 1 ? `/${m.floorOps}` : ""}`;
  const rate = valid ? median(results.map((r) => r.reqPerSec)) : 0;
  return [
    s.label,
    String(results[0]?.connections ?? "-"),
    valid ? fmt(rate, rate < 100 ? 1 : 0) : "INVALID",
    med((r) => r.latencyMs.p50, 2),
    med((r) => r.latencyMs.p99, 2),
    String(results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts + r.warmupFailures, 0)),
    results.length > 0 ? pct(median(results.map((r) => r.serverCpu))) : "-",
    results.length > 0 ? pct(Math.max(...results.map((r) => r.coreTaken))) : "-",
    results.length > 0 ? pct(Math.max(...results.map((r) => r.loadCpu))) : "-",
    med((r) => r.serverCpuUsPerRequest, 0),
    s.ratio ? `${fmt(s.ratio.median, 2)}${vs}` : "-",
    s.ratio ? range(s.ratio) : "-",
    s.cpuRatio ? fmt(s.cpuRatio.median, 2) : "-",
  ];
}

function percentOf(value: number, of: number): string {
  const delta = (value / of - 1) * 100;
  return `${delta >= 0 ? "+" : "−"}${fmt(Math.abs(delta), 0)}%`;
}

function abbreviate(paths: readonly string[]): string {
  return paths.length <= 3 ? paths.join(", ") : `${paths.slice(0, 3).join(", ")} and ${paths.length - 3} more`;
}
