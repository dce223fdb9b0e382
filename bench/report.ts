import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { FloorName } from "./endpoints.ts";
import type { BenchResults, LoadMeasurement } from "./results.ts";

const FLOOR_LABEL: Record<FloorName, string> = { bare_http: "node:http", rs256: "RS256" };

/** The human-readable report: floors, one row per endpoint with its ratio, then the stage targets. */
export function formatReport(results: BenchResults): string {
  const o = results.options;
  const out: string[] = [];
  out.push(
    `Portcullis bench ${results.date}  node ${results.machine.node}  ${results.machine.cpuModel} (${results.machine.cores} cores)`,
    `server on core ${o.serverCpu}, load generator on core ${o.loadCpu}; ${o.durationSeconds} s recorded after ${o.warmupSeconds} s warm-up; load average at start ${results.machine.loadAverage.map((l) => l.toFixed(2)).join(" ")}`,
    "",
  );

  const rows: string[][] = [["", "conns", "req/s", "p50 ms", "p99 ms", "failed", "server CPU", "core taken", "load CPU", "ratio"]];
  const { rs256, bare_http } = results.floors;
  if (rs256) {
    const samples = rs256.samples.map((s) => fmt(s.sigsPerSecond, 0)).join(" / ");
    const taken = rs256.samples.map((s) => pct(s.wait)).join(" / ");
    rows.push([`floor: RS256 sign/s (1 core)`, "-", fmt(rs256.sigsPerSecond, 0), "-", "-", "-", "100%", taken, "-", `(${samples})`]);
  }
  if (bare_http) rows.push(loadRow("floor: bare node:http", bare_http, "-"));
  for (const m of results.measurements) {
    rows.push(loadRow(m.endpoint, m, m.ratio === null ? "-" : `${fmt(m.ratio, 2)} of ${FLOOR_LABEL[m.floor]}`));
  }
  out.push(...table(rows), "");

  const invalid = [...(bare_http ? [["bare node:http", bare_http] as const] : []), ...results.measurements.map((m) => [m.endpoint, m] as const)]
    .filter(([, m]) => m.problems.length > 0);
  for (const [name, m] of invalid) out.push(`INVALID ${name}: ${m.problems.join("; ")}`);
  if (invalid.length > 0) out.push("");

  for (const t of results.targets) {
    const measured = t.ratio === null ? "not measured validly" : `measured ${fmt(t.ratio, 2)}`;
    out.push(`target  ${t.label}: ${measured}  ${t.status}   (${t.reference})`);
  }
  return out.join("\n");
}

export function writeResultsJson(results: BenchResults, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

function loadRow(name: string, m: LoadMeasurement, ratio: string): string[] {
  const r = m.result;
  const valid = m.problems.length === 0;
  return [
    name,
    String(r.connections),
    valid ? fmt(r.reqPerSec, 0) : "INVALID",
    fmt(r.latencyMs.p50, 2),
    fmt(r.latencyMs.p99, 2),
    String(r.non2xx + r.errors + r.timeouts),
    pct(r.serverCpu),
    pct(r.serverWait),
    pct(r.loadCpu),
    valid ? ratio : "-",
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
