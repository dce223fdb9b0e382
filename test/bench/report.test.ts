/** The bench's report (bench/report.ts): the peer's rows and the Portcullis ÷ ceiling / ÷ peer targets. */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load-protocol.ts";
import { parseOptions, type BenchOptions } from "../../bench/options.ts";
import { formatReport } from "../../bench/report.ts";
import type { BenchResults, FloorSample, ScenarioMeasurement } from "../../bench/results.ts";
import { measureServer } from "../../bench/round-ratios.ts";
import { evaluateTargets } from "../../bench/targets.ts";

const sample: FloorSample = { perSecond: 4_000, cpuUsPerOp: 250, coreTaken: 0, problems: [], raw: { operations: 8_000, seconds: 2, perSecond: 4_000, perCpuSecond: 4_000, coreTaken: 0 } };

function window(reqPerSec: number, serverCpuUsPerRequest: number, serverCpu: number, coreTaken: number): LoadResult {
  const latencyMs = { p50: 1, p90: 2, p99: 3, max: 4 };
  return { unit: "request", connections: 4, seconds: 3, ok: reqPerSec * 3, reqPerSec, latencyMs, non2xx: 0, errors: 0, timeouts: 0, warmupFailures: 0, statusCodes: {}, serverCpu, serverCpuUsPerRequest, serverWait: 0, coreTaken, loadCpu: 0.1 };
}

/** client_credentials with the peer: the provider at 2,600 req/s and 380 µs, the peer at 2,000 req/s and 480 µs. */
function results(coreTaken: number, providerCpu: number, peerCpu: number): BenchResults {
  const server = (label: string, rate: number, us: number, cpu: number) =>
    measureServer(label, [{ round: 0, result: window(rate, us, cpu, coreTaken), problems: [], floorSamples: [0, 1] }], [sample, sample], 1);
  const measurement: ScenarioMeasurement = { ...server("client_credentials", 2_600, 380, providerCpu), scenario: "client_credentials", floor: "rs256", floorOps: 1, peer: server("peer: node-oidc-provider", 2_000, 480, peerCpu) };
  return {
    date: "2026-11-26T10:00:00.000Z",
    machine: { node: "v24", cpuModel: "test", cores: 2, loadAverage: [0, 0, 0] },
    code: { commit: "abc", uncommitted: [] },
    options: { ...(parseOptions([], {}) as BenchOptions), peer: true, rounds: 1 },
    floors: { rs256: { samples: [sample, sample], perSecond: { median: 4_000, min: 4_000, max: 4_000 }, cpuUsPerOp: { median: 250, min: 250, max: 250 } } },
    measurements: [measurement],
    targets: evaluateTargets([measurement]),
    notes: [],
  };
}

describe("formatReport with the peer", () => {
  it("shows the peer's row and the ÷ peer target with both rates, the quotient and the quotient by CPU", () => {
    const report = formatReport(results(0, 0.99, 0.99));
    expect(report).toMatch(/^peer: node-oidc-provider +4 +2,000 /m);
    expect(report).toMatch(/client_credentials ÷ node-oidc-provider ≥ 1\.1 +2,600\/s +2,000\/s +1\.30 +1\.30–1\.30 +1\.26 +PASS/);
    expect(report).not.toContain("shows how the scheduler shared the core");
  });

  it("says when the two servers got very different shares of a core that other processes took", () => {
    const report = formatReport(results(0.8, 0.15, 0.45));
    expect(report).toContain("note: client_credentials ÷ node-oidc-provider ≥ 1.1: Portcullis got 15% of the server core, peer: node-oidc-provider 45%, with up to 80% taken by other processes");
  });
});
