import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { LoopFloorName } from "./floors.ts";
import type { LoadResult } from "./load-protocol.ts";
import type { BenchResults, LoadMeasurement, ScenarioMeasurement } from "./results.ts";
import { SCENARIOS, type FloorName } from "./scenarios.ts";

const FLOOR_LABEL: Record<FloorName, string> = { bare_http: "node:http", rs256: "RS256", scrypt: "scrypt" };
const LOOP_FLOOR_ROW: Record<LoopFloorName, { row: string; unit: string }> = {
  rs256: { row: "floor: RS256 signatures/s", unit: "sigs/s" },
  scrypt: { row: "floor: scrypt verifications/s", unit: "verifications/s" },
};

/** Above this share of the server core taken by other processes (or the hypervisor), a run is flagged as noisy. */
const NOISY_WAIT = 0.1;
/** Above this, the load generator may be what limits the number. */
const BUSY_LOAD_GENERATOR = 0.9;

/**
 * The human-readable report: floors and single-request scenarios in one table, the code flows (units of
 * several requests) in a second with the same columns per flow, warnings, then the targets.
 */
export function formatReport(results: BenchResults): string {
  const o = results.options;
  const out: string[] = [
    `Portcullis bench ${results.date}  node ${results.machine.node}  ${results.machine.cpuModel} (${results.machine.cores} cores)`,
    `server on core ${o.serverCpu}, load generator on core ${o.loadCpu}; ${o.durationSeconds} s recorded after ${o.warmupSeconds} s warm-up; ` +
      `load average at start ${results.machine.loadAverage.map((l) => l.toFixed(2)).join(" ")}`,
    "",
  ];

  const requests = results.measurements.filter((m) => m.result.unit !== "flow");
  const flows = results.measurements.filter((m) => m.result.unit === "flow");
  const rows: string[][] = [["", "conns", "req/s", "p50 ms", "p99 ms", "failed", "server CPU", "core taken", "load CPU", "CPU µs/req", "ratio", "ratio/CPU"]];
  for (const floor of ["rs256", "scrypt"] as const) {
    const f = results.floors[floor];
    if (!f) continue;
    const taken = Math.max(...f.samples.map((s) => s.coreTaken));
    rows.push([LOOP_FLOOR_ROW[floor].row, "-", fmt(f.perSecond, f.perSecond < 100 ? 1 : 0), "-", "-", "-", "100%", pct(taken), "-", fmt(1e6 / f.perCpuSecond, 0), "-", "-"]);
  }
  if (results.floors.bare_http) rows.push(loadRow("floor: bare node:http", results.floors.bare_http, null, null));
  for (const m of requests) rows.push(measurementRow(m));
  out.push(...table(rows), "");

  if (flows.length > 0) {
    const flowRows: string[][] = [["", "users", "flows/s", "p50 ms", "p99 ms", "failed", "server CPU", "core taken", "load CPU", "CPU µs/flow", "ratio", "ratio/CPU"]];
    for (const m of flows) flowRows.push(measurementRow(m));
    out.push(...table(flowRows));
    for (const m of flows) {
      const steps = Object.entries(m.result.steps ?? {});
      if (m.problems.length > 0 || steps.length === 0) continue;
      out.push(`  ${m.label}, per request: ${steps.map(([step, l]) => `${step} p50 ${fmt(l.p50, 2)} / p99 ${fmt(l.p99, 2)} ms`).join(", ")}`);
    }
    out.push("");
  }

  for (const floor of ["rs256", "scrypt"] as const) {
    const f = results.floors[floor];
    if (!f || f.samples.length < 2) continue;
    const digits = f.perSecond < 100 ? 1 : 0;
    out.push(
      `${FLOOR_LABEL[floor]} floor = mean of ${f.samples.map((s) => fmt(s.perSecond, digits)).join(", ")} ${LOOP_FLOOR_ROW[floor].unit} ` +
        `(measured right before and right after ${f.around.join(", ")})`,
    );
  }
  out.push(...warnings(results));
  out.push("");

  for (const t of results.targets) {
    const measured = t.ratio === null ? "no valid measurement" : `measured ${fmt(t.ratio, 2)}`;
    out.push(`target  ${t.label}: ${measured}  ${t.status}${t.reference ? `   (${t.reference})` : ""}`);
  }
  for (const m of results.measurements) {
    const why = SCENARIOS[m.scenario].noTarget;
    if (why) out.push(`target  ${m.label}: none — ${why}`);
  }
  return out.join("\n");
}

export function writeResultsJson(results: BenchResults, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

/** What makes a number in this run less trustworthy than it looks. */
function warnings(results: BenchResults): string[] {
  const lines: string[] = [];
  const loads: Array<[string, LoadMeasurement]> = [
    ...(results.floors.bare_http ? [["bare node:http", results.floors.bare_http] as [string, LoadMeasurement]] : []),
    ...results.measurements.map((m) => [m.label, m] as [string, LoadMeasurement]),
  ];
  for (const [name, m] of loads) {
    if (m.problems.length > 0) lines.push(`INVALID ${name}: ${m.problems.join("; ")} — not a number`);
  }
  const waits = [
    ...loads.map(([name, m]) => [name, m.result.coreTaken] as const),
    ...(results.floors.rs256?.samples ?? []).map((s) => ["RS256 floor", s.coreTaken] as const),
    ...(results.floors.scrypt?.samples ?? []).map((s) => ["scrypt floor", s.coreTaken] as const),
  ];
  const noisy = waits.filter(([, w]) => w > NOISY_WAIT);
  if (noisy.length > 0) {
    lines.push(
      `NOISY: other processes took the server core during ${noisy.map(([n, w]) => `${n} (${pct(w)})`).join(", ")}; ` +
        `req/s ratios are less reliable than usual, ratio/CPU is the steadier cross-check — rerun when the machine is quieter`,
    );
  }
  for (const [name, m] of loads) {
    if (m.result.loadCpu > BUSY_LOAD_GENERATOR) {
      lines.push(`note: the load generator used ${pct(m.result.loadCpu)} of its core during ${name}: that number may be partly the generator's limit`);
    }
  }
  return lines;
}

function measurementRow(m: ScenarioMeasurement): string[] {
  const vs = ` × ${FLOOR_LABEL[m.floor]}${m.floorOps > 1 ? `/${m.floorOps}` : ""}`;
  return loadRow(m.label, m, m.ratio === null ? null : `${fmt(m.ratio, 2)}${vs}`, m.cpuRatio === null ? null : `${fmt(m.cpuRatio, 2)}${vs}`);
}

function loadRow(name: string, m: LoadMeasurement, ratio: string | null, cpuRatio: string | null): string[] {
  const r: LoadResult = m.result;
  const valid = m.problems.length === 0;
  // An invalid measurement shows its failures and conditions, but no performance numbers.
  const number = (text: string) => (valid ? text : "-");
  return [
    name,
    String(r.connections),
    valid ? fmt(r.reqPerSec, r.reqPerSec < 100 ? 1 : 0) : "INVALID",
    number(fmt(r.latencyMs.p50, 2)),
    number(fmt(r.latencyMs.p99, 2)),
    String(r.non2xx + r.errors + r.timeouts + r.warmupFailures),
    pct(r.serverCpu),
    pct(r.coreTaken),
    pct(r.loadCpu),
    number(fmt(r.serverCpuUsPerRequest, 0)),
    number(ratio ?? "-"),
    number(cpuRatio ?? "-"),
  ];
}

function pct(share: number): string {
  return `${fmt(share * 100, 0)}%`;
}

function fmt(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** First column left-aligned, the rest right-aligned. */
function table(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd());
}
