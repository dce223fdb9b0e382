/** The bench's targets (bench/targets.ts): Portcullis ÷ peer, ÷ ceiling, N workers ÷ one and on LDAP ÷ on users.yaml, in the same rounds. */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load-protocol.ts";
import type { FloorSample, ScenarioMeasurement, WorkerScaling } from "../../bench/results.ts";
import { measureServer, median, providerShareOf, type RecordedWindow } from "../../bench/round-ratios.ts";
import { SCENARIOS, type ScenarioName } from "../../bench/scenarios.ts";
import {
  CEILING_WITHOUT_TARGET,
  evaluateTargets,
  LDAP_WITHOUT_TARGET,
  MIN_SHARE_OF_PEER,
  PEER_WITHOUT_TARGET,
  WORKER_SCALING_TARGET,
} from "../../bench/targets.ts";

const floor: FloorSample[] = [0, 1, 2, 3].map(() => ({
  perSecond: 4_000,
  cpuUsPerOp: 250,
  coreTaken: 0,
  problems: [],
  raw: { operations: 0, seconds: 1, perSecond: 4_000, perCpuSecond: 4_000, coreTaken: 0 },
}));

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

/** --workers 2 whose rounds had these quotients (null: an invalid round). */
function scaling(ratios: Array<number | null>): WorkerScaling {
  const valid = ratios.filter((r): r is number => r !== null);
  const rounds = ratios.map((ratio) => ({
    one: {} as WorkerScaling["rounds"][number]["one"],
    many: {} as WorkerScaling["rounds"][number]["many"],
    ratio,
  }));
  return {
    workers: 2,
    cores: "0,1",
    connections: 8,
    rounds,
    ratio: valid.length === ratios.length ? median(valid) : null,
    problems: valid.length === ratios.length ? [] : ["round 2: 3 timeouts"],
  };
}

function measured(
  scenario: ScenarioName,
  provider: number[],
  others: { ceiling?: number[]; peer?: number[]; peerProblems?: string[]; ldap?: number[] } = {},
): ScenarioMeasurement {
  return {
    ...server(SCENARIOS[scenario].label, provider),
    scenario,
    floor: "rs256",
    floorOps: 1,
    ...(others.ceiling ? { ceiling: server("ceiling", others.ceiling) } : {}),
    ...(others.peer ? { peer: server("peer", others.peer, undefined, others.peerProblems) } : {}),
    ...(others.ldap ? { ldap: server("on LDAP", others.ldap) } : {}),
  };
}

const find = (results: ReturnType<typeof evaluateTargets>, scenario: ScenarioName, against: string) =>
  results.find((t) => t.scenario === scenario && t.against === against);

describe("evaluateTargets", () => {
  it("judges Portcullis ÷ peer by the median of the rounds' quotients, for every scenario the peer was measured in", () => {
    const results = evaluateTargets([
      measured("jwks", [1_200, 1_100, 1_300], { peer: [1_000, 1_000, 1_000] }),
      measured("userinfo", [900, 1_000, 1_100], { peer: [1_000, 1_000, 1_000] }),
    ]);
    expect(find(results, "jwks", "peer")).toMatchObject({ minRatio: MIN_SHARE_OF_PEER, status: "PASS", range: { min: 1.1, max: 1.3 } });
    expect(find(results, "jwks", "peer")!.ratio).toBeCloseTo(1.2, 10);
    expect(find(results, "userinfo", "peer")).toMatchObject({ status: "FAIL" });
    expect(find(results, "userinfo", "peer")!.ratio).toBeCloseTo(1.0, 10);
  });

  it("leaves the login with a password without a peer target: both sides verify the same scrypt hash, most of a login", () => {
    const results = evaluateTargets([measured("code_flow_login", [900, 1_000, 1_100], { peer: [1_000, 1_000, 1_000] })]);
    expect(find(results, "code_flow_login", "peer")).toBeUndefined();
    expect(PEER_WITHOUT_TARGET.code_flow_login).toMatch(/scrypt/);
  });

  it("judges refresh against the peer for each access-token format on its own line", () => {
    const results = evaluateTargets([
      measured("refresh", [1_210, 1_210], { peer: [1_000, 1_000] }),
      measured("refresh_reference", [1_050, 1_050], { peer: [1_000, 1_000] }),
    ]);
    expect(results.map((t) => [t.label, t.status])).toEqual([
      ["refresh (JWT) ÷ node-oidc-provider ≥ 1.1", "PASS"],
      ["refresh (reference) ÷ node-oidc-provider ≥ 1.1", "FAIL"],
    ]);
  });

  it("judges client_credentials against 0.9 of its ceiling, only when the ceiling was measured", () => {
    const results = evaluateTargets([measured("client_credentials", [1_850, 1_800, 1_900], { ceiling: [2_000, 2_000, 2_000] })]);
    expect(find(results, "client_credentials", "ceiling")).toMatchObject({
      label: "client_credentials ÷ its ceiling ≥ 0.9",
      minRatio: 0.9,
      status: "PASS",
    });
    expect(evaluateTargets([measured("client_credentials", [1_700], { ceiling: [2_000] })])[0]).toMatchObject({ status: "FAIL" });
    expect(evaluateTargets([measured("client_credentials", [1_850])])).toEqual([]);
  });

  it("has no target on the other ceilings (the SSO code flow's 0.9 is retired) nor on any floor", () => {
    const results = evaluateTargets([
      measured("code_flow_sso", [800, 800, 800], { ceiling: [1_000, 1_000, 1_000] }),
      measured("refresh", [800], { ceiling: [1_000] }),
      measured("client_credentials", [100]),
      measured("userinfo", [1]),
    ]);
    expect(results).toEqual([]);
    expect(CEILING_WITHOUT_TARGET.code_flow_sso).toMatch(/retired/);
  });

  it("calls a peer comparison INVALID when the peer had failed responses, whatever the numbers", () => {
    const results = evaluateTargets([measured("discovery", [2_000], { peer: [100], peerProblems: ["3 non-2xx"] })]);
    expect(find(results, "discovery", "peer")).toMatchObject({ status: "INVALID", ratio: null });
  });

  it("judges the SSO code flow and refresh on LDAP against 0.9 of the same on users.yaml, by the median of the rounds", () => {
    const results = evaluateTargets([
      measured("code_flow_sso", [1_000, 1_000, 1_000], { ldap: [950, 880, 990] }),
      measured("refresh", [1_000, 1_000], { ldap: [850, 870] }),
    ]);
    expect(find(results, "code_flow_sso", "users.yaml")).toMatchObject({
      label: "code flow (SSO) on LDAP ÷ on users.yaml ≥ 0.9",
      minRatio: 0.9,
      range: { min: 0.88, max: 0.99 },
      status: "PASS",
    });
    expect(find(results, "code_flow_sso", "users.yaml")!.ratio).toBeCloseTo(0.95, 10);
    expect(find(results, "refresh", "users.yaml")).toMatchObject({ label: "refresh (JWT) on LDAP ÷ on users.yaml ≥ 0.9", status: "FAIL" });
    expect(evaluateTargets([measured("code_flow_sso", [1_000])])).toEqual([]);
  });

  it("leaves the login with a password on LDAP without a target: it compares scrypt with a bind", () => {
    expect(evaluateTargets([measured("code_flow_login", [10, 10], { ldap: [150, 160] })])).toEqual([]);
    expect(LDAP_WITHOUT_TARGET.code_flow_login).toMatch(/scrypt/);
  });

  it("judges N workers ÷ one against 1.7 by the median of the rounds, when --workers measured it", () => {
    const judge = (ratios: Array<number | null>) => evaluateTargets([], scaling(ratios)).find((t) => t.against === "one worker");
    expect(judge([1.44, 1.92, 2.16])).toMatchObject({
      label: `client_credentials 2 workers ÷ 1 worker ≥ ${WORKER_SCALING_TARGET}`,
      ratio: 1.92,
      range: { min: 1.44, max: 2.16 },
      status: "PASS",
    });
    expect(judge([1.2, 1.5, 1.9])).toMatchObject({ ratio: 1.5, status: "FAIL" });
    expect(judge([1.9, null, 2])).toMatchObject({ ratio: null, range: null, status: "INVALID" });
    expect(evaluateTargets([]).some((t) => t.against === "one worker")).toBe(false);
  });
});

describe("providerShareOf by CPU", () => {
  it("divides the other server's CPU time per unit by the provider's, round by round", () => {
    const share = providerShareOf(server("p", [1_000, 1_000], [400, 500]), server("peer", [1_000, 1_000], [600, 600]), "cpuRatio");
    expect(share!.min).toBeCloseTo(1.2, 10);
    expect(share!.max).toBeCloseTo(1.5, 10);
  });
});
