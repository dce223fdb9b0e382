/**
 * DPoP and private_key_jwt against their shared-secret, bearer-token twins (bench/proof-cost.ts), the DPoP
 * CPU target (bench/targets.ts) and their section of the report (bench/proof-cost-report.ts).
 */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load-protocol.ts";
import { parseOptions, type BenchOptions } from "../../bench/options.ts";
import { es256CpuUs, proofCosts, twinComparison } from "../../bench/proof-cost.ts";
import { formatReport } from "../../bench/report.ts";
import type { BenchResults, FloorSample, FloorSeries, ScenarioMeasurement } from "../../bench/results.ts";
import { floorSeries, measureServer, type RecordedWindow } from "../../bench/round-ratios.ts";
import { SCENARIOS, type ScenarioName } from "../../bench/scenarios.ts";
import { DPOP_EXTRA_CPU_TARGET, evaluateTargets } from "../../bench/targets.ts";

const floorSample = (cpuUsPerOp: number): FloorSample => ({
  perSecond: 1e6 / cpuUsPerOp,
  cpuUsPerOp,
  coreTaken: 0,
  problems: [],
  raw: { operations: 1, seconds: 1, perSecond: 1, perCpuSecond: 1, coreTaken: 0 },
});
const rs256 = [0, 1, 2, 3, 4].map(() => floorSample(400));

/** A server's rounds at these rates and CPU µs per request. */
function server(label: string, rates: number[], cpuUs: number[], problems: string[] = []) {
  const windows: RecordedWindow[] = rates.map((reqPerSec, round) => ({
    round,
    result: {
      unit: "request",
      connections: 4,
      seconds: 2,
      ok: reqPerSec * 2,
      reqPerSec,
      latencyMs: { p50: 1, p90: 2, p99: 3, max: 4 },
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      warmupFailures: 0,
      statusCodes: {},
      serverCpu: 1,
      serverCpuUsPerRequest: cpuUs[round]!,
      serverWait: 0,
      coreTaken: 0,
      loadCpu: 0.2,
    } satisfies LoadResult,
    problems: round === 0 ? problems : [],
    floorSamples: [round, round + 1],
  }));
  return measureServer(label, windows, rs256, 1);
}

function measured(
  scenario: ScenarioName,
  rates: number[],
  cpuUs: number[],
  peer?: { rates: number[]; cpuUs: number[] },
): ScenarioMeasurement {
  return {
    ...server(SCENARIOS[scenario].label, rates, cpuUs),
    scenario,
    floor: "rs256",
    floorOps: 1,
    ...(peer ? { peer: server("peer: node-oidc-provider", peer.rates, peer.cpuUs) } : {}),
  };
}

const es256 = (cpuUs: number[]): { es256: FloorSeries } => ({ es256: floorSeries(cpuUs.map(floorSample)) });

describe("twinComparison", () => {
  it("divides each round's rate by the twin's of the same round and subtracts its CPU per request, median and range", () => {
    const comparison = twinComparison(
      server("dpop", [800, 900, 700], [1_100, 1_000, 1_300]),
      server("bearer", [1_000, 1_000, 1_000], [950, 900, 1_000]),
    );
    expect(comparison!.rateShare).toEqual({ median: 0.8, min: 0.7, max: 0.9 });
    expect(comparison!.extraCpuUs).toEqual({ median: 150, min: 100, max: 300 });
  });

  it("is null when either side had a failed window: a proof that is refused is not cheap", () => {
    expect(twinComparison(server("dpop", [800], [1_100], ["12 non-2xx"]), server("bearer", [1_000], [900]))).toBeNull();
    expect(twinComparison(server("dpop", [800], [1_100]), server("bearer", [1_000], [900], ["3 timeouts"]))).toBeNull();
  });
});

describe("proofCosts", () => {
  it("pairs each DPoP and private_key_jwt scenario with its twin, on the provider and on the peer", () => {
    const costs = proofCosts([
      measured("client_credentials", [1_000], [900], { rates: [800], cpuUs: [1_200] }),
      measured("client_credentials_dpop", [900], [1_000], { rates: [600], cpuUs: [1_500] }),
      measured("refresh_pkjwt", [300], [2_000]),
    ]);
    expect(costs.map((c) => [c.scenario, c.twin, c.kind])).toEqual([
      ["client_credentials_dpop", "client_credentials", "dpop"],
      ["refresh_pkjwt", "refresh", "private_key_jwt"],
    ]);
    expect(costs[0]!.provider!.rateShare.median).toBeCloseTo(0.9, 10);
    expect(costs[0]!.provider!.extraCpuUs.median).toBe(100);
    expect(costs[0]!.peer!.rateShare.median).toBeCloseTo(0.75, 10);
    expect(costs[0]!.peer!.extraCpuUs.median).toBe(300);
    // Its twin was not in the run: nothing to divide by.
    expect(costs[1]).toMatchObject({ twinMeasured: false, provider: null });
  });

  it("takes the ES256 verification's CPU cost as the median of the run's ES256 samples", () => {
    expect(es256CpuUs(es256([120, 130, 125]))).toBe(125);
    expect(es256CpuUs({})).toBeNull();
  });
});

describe("the DPoP CPU target", () => {
  const target = (dpopCpuUs: number[], floors: Partial<Record<"es256", FloorSeries>>) =>
    evaluateTargets(
      [
        measured("client_credentials", [1_000, 1_000, 1_000], [900, 900, 900]),
        measured("client_credentials_dpop", [900, 900, 900], dpopCpuUs),
      ],
      undefined,
      floors,
    ).find((t) => t.against === "ES256 verification");

  it("passes when DPoP adds at most one ES256 verification's CPU per request, by the median of the rounds", () => {
    expect(target([1_000, 1_020, 1_200], es256([125]))).toMatchObject({
      scenario: "client_credentials_dpop",
      maxRatio: DPOP_EXTRA_CPU_TARGET,
      ratio: 120 / 125,
      status: "PASS",
    });
  });

  it("fails when it adds more, and is INVALID without an ES256 sample to compare with", () => {
    expect(target([1_100, 1_050, 1_200], es256([125]))).toMatchObject({ ratio: 200 / 125, status: "FAIL" });
    expect(target([1_000, 1_000, 1_000], {})).toMatchObject({ ratio: null, status: "INVALID" });
  });

  it("is not judged when the run left the bearer twin out (--only client_credentials_dpop)", () => {
    const results = evaluateTargets([measured("client_credentials_dpop", [900], [1_000])], undefined, es256([125]));
    expect(results.filter((t) => t.against === "ES256 verification")).toEqual([]);
  });

  it("has no CPU target for private_key_jwt, which the issue bounds only against the peer", () => {
    const results = evaluateTargets(
      [measured("client_credentials", [1_000], [900]), measured("client_credentials_pkjwt", [900], [2_000])],
      undefined,
      es256([125]),
    );
    expect(results.filter((t) => t.against === "ES256 verification")).toEqual([]);
  });

  it("judges each proof scenario against the peer at the same ≥ 1.1 as the others", () => {
    const results = evaluateTargets([
      measured("client_credentials_pkjwt", [1_000], [900], { rates: [1_000], cpuUs: [900] }),
      measured("refresh_dpop", [330], [900], { rates: [300], cpuUs: [900] }),
    ]);
    expect(results.filter((t) => t.against === "peer").map((t) => [t.scenario, t.status])).toEqual([
      ["client_credentials_pkjwt", "FAIL"],
      ["refresh_dpop", "PASS"],
    ]);
  });
});

describe("the report's DPoP and private_key_jwt section", () => {
  it("shows each proof scenario ÷ its twin on both servers, the extra CPU, its share of an ES256 verification and the target", () => {
    const measurements = [
      measured("client_credentials", [1_000], [900], { rates: [700], cpuUs: [1_300] }),
      measured("client_credentials_dpop", [850], [1_010], { rates: [500], cpuUs: [1_700] }),
    ];
    const floors = { rs256: floorSeries(rs256), ...es256([125]) };
    const results: BenchResults = {
      date: "2026-11-28T18:00:00.000Z",
      machine: { node: "v24", cpuModel: "test", cores: 2, loadAverage: [0, 0, 0] },
      code: { commit: "abc", uncommitted: [] },
      options: { ...(parseOptions([], {}) as BenchOptions), peer: true, ldap: false, rounds: 1 },
      floors,
      measurements,
      targets: evaluateTargets(measurements, undefined, floors),
      proofCosts: proofCosts(measurements),
      notes: [],
    };
    const report = formatReport(results);
    const row = report.split("\n").find((l) => l.startsWith("client_credentials (DPoP) ÷ client_credentials"));
    expect(row?.split(/\s{2,}/)).toEqual([
      "client_credentials (DPoP) ÷ client_credentials",
      "0.85",
      "0.85–0.85",
      "+110/req",
      "0.88",
      "0.71",
      "+400/req",
    ]);
    expect(report).toContain("ES256 verification on the server core: 125 CPU µs");
    expect(report).toContain(
      "target  client_credentials (DPoP): extra CPU per request over bearer ≤ 1 ES256 verification: 0.88 (0.88–0.88)  PASS",
    );
    expect(report).toMatch(/ES256 verifications\/s +- +8,000/);
  });
});
