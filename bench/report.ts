import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { FloorName } from "./endpoints.ts";
import type { LoadResult } from "./load-protocol.ts";
import type { BenchResults, LoadMeasurement } from "./results.ts";

const FLOOR_LABEL: Record<FloorName, string> = { bare_http: "node:http", rs256: "RS256" };

/** Above this share of the server core taken by other processes (or the hypervisor), a run is flagged as noisy. */
const NOISY_WAIT = 0.1;
/** Above this, the load generator may be what limits the number. */
const BUSY_LOAD_GENERATOR = 0.9;

/** The human-readable report: floors, one row per endpoint with its ratios, warnings, then the targets. */
export function formatReport(results: BenchResults): string {
  const o = results.options;
  const out: string[] = [
    `Portcullis bench ${results.date}  node ${results.machine.node}  ${results.machine.cpuModel} (${results.machine.cores} cores)`,
    `server on core ${o.serverCpu}, load generator on core ${o.loadCpu}; ${o.durationSeconds} s recorded after ${o.warmupSeconds} s warm-up; ` +
      `load average at start ${results.machine.loadAverage.map((l) => l.toFixed(2)).join(" ")}`,
    "",
  ];

  const rows: string[][] = [["", "conns", "req/s", "p50 ms", "p99 ms", "failed", "server CPU", "core taken", "load CPU", "CPU µs/req", "ratio", "ratio/CPU"]];
  const { rs256, bare_http } = results.floors;
  if (rs256) {
    const taken = Math.max(...rs256.samples.map((s) => s.coreTaken));
    rows.push(["floor: RS256 signatures/s", "-", fmt(rs256.sigsPerSecond, 0), "-", "-", "-", "100%", pct(taken), "-", fmt(1e6 / rs256.sigsPerCpuSecond, 0), "-", "-"]);
  }
  if (bare_http) rows.push(loadRow("floor: bare node:http", bare_http, null, null));
  for (const m of results.measurements) {
    const vs = ` × ${FLOOR_LABEL[m.floor]}`;
    rows.push(loadRow(m.endpoint, m, m.ratio === null ? null : `${fmt(m.ratio, 2)}${vs}`, m.cpuRatio === null ? null : `${fmt(m.cpuRatio, 2)}${vs}`));
  }
  out.push(...table(rows), "");

  if (rs256 && rs256.samples.length > 1) {
    out.push(`RS256 floor = mean of ${rs256.samples.map((s) => fmt(s.sigsPerSecond, 0)).join(" and ")} sigs/s (measured right before and right after client_credentials)`);
  }
  out.push(...warnings(results));
  out.push("");

  for (const t of results.targets) {
    const measured = t.ratio === null ? "no valid measurement" : `measured ${fmt(t.ratio, 2)}`;
    out.push(`target  ${t.label}: ${measured}  ${t.status}   (${t.reference})`);
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
    ...results.measurements.map((m) => [m.endpoint, m] as [string, LoadMeasurement]),
  ];
  for (const [name, m] of loads) {
    if (m.problems.length > 0) lines.push(`INVALID ${name}: ${m.problems.join("; ")} — not a number`);
  }
  const waits = [
    ...loads.map(([name, m]) => [name, m.result.coreTaken] as const),
    ...(results.floors.rs256?.samples ?? []).map((s) => ["RS256 floor", s.coreTaken] as const),
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

function loadRow(name: string, m: LoadMeasurement, ratio: string | null, cpuRatio: string | null): string[] {
  const r: LoadResult = m.result;
  const valid = m.problems.length === 0;
  // An invalid measurement shows its failures and conditions, but no performance numbers.
  const number = (text: string) => (valid ? text : "-");
  return [
    name,
    String(r.connections),
    valid ? fmt(r.reqPerSec, 0) : "INVALID",
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
