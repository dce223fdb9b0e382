/** The bench's targets (bench/targets.ts): on floors, and Portcullis ÷ ceiling and ÷ peer in the same rounds. */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load-protocol.ts";
import type { FloorSample, ScenarioMeasurement } from "../../bench/results.ts";
import { measureServer, providerShareOf, type RecordedWindow } from "../../bench/round-ratios.ts";
import type { ScenarioName } from "../../bench/scenarios.ts";
import { evaluateTargets, MIN_SHARE_OF_PEER } from "../../bench/targets.ts";

const floor: FloorSample[] = [0, 1, 2, 3].map(() => ({ perSecond: 4_000, cpuUsPerOp: 250, coreTaken: 0, problems: [], raw: { operations: 0, seconds: 1, perSecond: 4_000, perCpuSecond: 4_000, coreTaken: 0 } }));

/** A server's rounds at these rates (and CPU µs per request), each round between floor samples i and i+1. */
function server(label: string, rates: number[], cpuUs: number[] = rates.map(() => 500), problems: string[] = []) {
  const windows: RecordedWindow[] = rates.map((reqPerSec, round) => ({
    round,
    result: { reqPerSec, serverCpuUsPerRequest: cpuUs[round]! } as LoadResult,
    problems: round === 0 ? problems : [],
    floorSamples: [round, round + 1],
  }));
  return measureServer(label, windows, floor, 1);
}

function measured(scenario: ScenarioName, provider: number[], others: { ceiling?: number[]; peer?: number[]; peerProblems?: string[] } = {}): ScenarioMeasurement {
  return {
    ...server(scenario, provider),
    scenario,
    floor: "rs256",
    floorOps: 1,
    ...(others.ceiling ? { ceiling: server("ceiling", others.ceiling) } : {}),
    ...(others.peer ? { peer: server("peer", others.peer, undefined, others.peerProblems) } : {}),
  };
}

const find = (results: ReturnType<typeof evaluateTargets>, scenario: ScenarioName, against: string) => results.find((t) => t.scenario === scenario && t.against === against);

describe("evaluateTargets", () => {
  it("judges Portcullis ÷ peer by the median of the rounds' quotients, for every scenario the peer was measured in", () => {
    const results = evaluateTargets([
      measured("jwks", [1_200, 1_100, 1_300], { peer: [1_000, 1_000, 1_000] }),
      measured("refresh", [900, 1_000, 1_100], { peer: [1_000, 1_000, 1_000] }),
    ]);
    expect(find(results, "jwks", "peer")).toMatchObject({ minRatio: MIN_SHARE_OF_PEER, status: "PASS", range: { min: 1.1, max: 1.3 } });
    expect(find(results, "jwks", "peer")!.ratio).toBeCloseTo(1.2, 10);
    expect(find(results, "refresh", "peer")).toMatchObject({ status: "FAIL" });
    expect(find(results, "refresh", "peer")!.ratio).toBeCloseTo(1.0, 10);
  });

  it("judges client_credentials and code flow (SSO) against 0.9 of their ceilings, only when the ceiling was measured", () => {
    const results = evaluateTargets([
      measured("client_credentials", [1_850, 1_800, 1_900], { ceiling: [2_000, 2_000, 2_000] }),
      measured("code_flow_sso", [800, 800, 800], { ceiling: [1_000, 1_000, 1_000] }),
      measured("refresh", [800], { ceiling: [1_000] }),
    ]);
    expect(find(results, "client_credentials", "ceiling")).toMatchObject({ minRatio: 0.9, status: "PASS" });
    expect(find(results, "code_flow_sso", "ceiling")).toMatchObject({ minRatio: 0.9, status: "FAIL" });
    expect(find(results, "refresh", "ceiling")).toBeUndefined();
    expect(evaluateTargets([measured("client_credentials", [1_850])]).map((t) => t.against)).toEqual(["floor"]);
  });

  it("calls a peer comparison INVALID when the peer had failed responses, whatever the numbers", () => {
    const results = evaluateTargets([measured("discovery", [2_000], { peer: [100], peerProblems: ["3 non-2xx"] })]);
    expect(find(results, "discovery", "peer")).toMatchObject({ status: "INVALID", ratio: null });
  });

  it("keeps the floor targets as they were", () => {
    const results = evaluateTargets([measured("client_credentials", [3_200, 2_800, 3_000])]);
    expect(find(results, "client_credentials", "floor")).toMatchObject({ minRatio: 0.75, ratio: 0.75, status: "PASS" });
  });
});

describe("providerShareOf by CPU", () => {
  it("divides the other server's CPU time per unit by the provider's, round by round", () => {
    const share = providerShareOf(server("p", [1_000, 1_000], [400, 500]), server("peer", [1_000, 1_000], [600, 600]), "cpuRatio");
    expect(share!.min).toBeCloseTo(1.2, 10);
    expect(share!.max).toBeCloseTo(1.5, 10);
  });
});
