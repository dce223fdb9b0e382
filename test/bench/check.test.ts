/** What fails `npm run bench -- --check` (bench/check.ts): a target not passed, or any invalid measurement. */
import { describe, expect, it } from "vitest";
import { checkFailures } from "../../bench/check.ts";
import type { LoadResult } from "../../bench/load-protocol.ts";
import { parseOptions, type BenchOptions } from "../../bench/options.ts";
import type { BenchResults, FloorSample, ScenarioMeasurement, ServerMeasurement, WorkerScaling } from "../../bench/results.ts";
import { floorSeries, measureServer } from "../../bench/round-ratios.ts";
import type { ScenarioName } from "../../bench/scenarios.ts";
import { evaluateTargets } from "../../bench/targets.ts";

const sample = (problems: string[] = []): FloorSample => ({
  perSecond: 4_000,
  cpuUsPerOp: 250,
  coreTaken: 0,
  problems,
  raw: { operations: 8_000, seconds: 2, perSecond: 4_000, perCpuSecond: 4_000, coreTaken: 0 },
});

/** One round at this rate; `problems` (failed responses) make it invalid. */
function server(label: string, rate: number, problems: string[] = []): ServerMeasurement {
  const result = { reqPerSec: rate, serverCpuUsPerRequest: 500 } as LoadResult;
  return measureServer(label, [{ round: 0, result, problems, floorSamples: [0, 1] }], [sample(), sample()], 1);
}

function measured(
  scenario: ScenarioName,
  provider: ServerMeasurement,
  others: { ceiling?: ServerMeasurement; peer?: ServerMeasurement; ldap?: ServerMeasurement } = {},
): ScenarioMeasurement {
  return { ...provider, scenario, floor: "rs256", floorOps: 1, ...others };
}

function run(
  measurements: ScenarioMeasurement[],
  extra: { floorSamples?: FloorSample[]; workerScaling?: WorkerScaling } = {},
): BenchResults {
  return {
    date: "2026-11-27T10:00:00.000Z",
    machine: { node: "v24", cpuModel: "test", cores: 2, loadAverage: [0, 0, 0] },
    code: { commit: "abc", uncommitted: [] },
    options: { ...(parseOptions([], {}) as BenchOptions), check: true },
    floors: { rs256: floorSeries(extra.floorSamples ?? [sample(), sample()]) },
    measurements,
    targets: evaluateTargets(measurements, extra.workerScaling),
    notes: [],
    ...(extra.workerScaling ? { workerScaling: extra.workerScaling } : {}),
  };
}

const scaling = (ratio: number | null): WorkerScaling => ({
  workers: 2,
  cores: "0,1",
  connections: 8,
  rounds: [{ one: {} as WorkerScaling["rounds"][number]["one"], many: {} as WorkerScaling["rounds"][number]["many"], ratio }],
  ratio,
  problems: ratio === null ? ["round 1: 2 timeouts"] : [],
});

describe("checkFailures", () => {
  it("passes a valid run whose targets all pass", () => {
    const results = run(
      [
        measured("client_credentials", server("client_credentials", 1_900), {
          ceiling: server("ceiling", 2_000),
          peer: server("peer", 1_500),
        }),
        measured("refresh_reference", server("refresh (reference)", 1_200), { peer: server("peer", 1_000) }),
      ],
      { workerScaling: scaling(1.9) },
    );
    expect(results.targets.map((t) => t.status)).toEqual(["PASS", "PASS", "PASS", "PASS"]);
    expect(checkFailures(results)).toEqual([]);
  });

  it("fails on each target that does not pass, naming it and its ratio", () => {
    const results = run(
      [measured("refresh", server("refresh (JWT)", 1_050), { peer: server("peer", 1_000), ldap: server("refresh (JWT) on LDAP", 840) })],
      { workerScaling: scaling(1.5) },
    );
    expect(checkFailures(results)).toEqual([
      "target refresh (JWT) ÷ node-oidc-provider ≥ 1.1: FAIL (1.05)",
      "target refresh (JWT) on LDAP ÷ on users.yaml ≥ 0.9: FAIL (0.80)",
      "target client_credentials 2 workers ÷ 1 worker ≥ 1.7: FAIL (1.50)",
    ]);
  });

  it("does not fail on the SSO code flow's quotient to its ceiling, which has no target any more", () => {
    expect(checkFailures(run([measured("code_flow_sso", server("code flow (SSO)", 760), { ceiling: server("ceiling", 1_000) })]))).toEqual(
      [],
    );
  });

  it("fails on an invalid measurement even where no target applies: a ceiling's, a floor sample, the workers' rounds", () => {
    const ceiling = run([
      measured("code_flow_sso", server("code flow (SSO)", 760), {
        ceiling: server("ceiling: minimal node:http code flow", 1_000, ["3 timeouts"]),
      }),
    ]);
    expect(checkFailures(ceiling)).toEqual(["ceiling: minimal node:http code flow (code_flow_sso) is invalid: 3 timeouts"]);
    const floor = run([measured("userinfo", server("userinfo", 1_000))], { floorSamples: [sample(), sample(["2 non-2xx"])] });
    expect(checkFailures(floor)).toContainEqual("1 invalid rs256 floor sample");
    expect(checkFailures(run([], { workerScaling: scaling(null) }))).toEqual([
      "target client_credentials 2 workers ÷ 1 worker ≥ 1.7: INVALID",
    ]);
    const login = run([
      measured("code_flow_login", server("code flow (login)", 10), { ldap: server("code flow (login) on LDAP", 150, ["2 timeouts"]) }),
    ]);
    expect(checkFailures(login)).toEqual(["code flow (login) on LDAP (code_flow_login) is invalid: 2 timeouts"]);
  });

  it("passes a valid run that judged no target (no --peer, no ceilings, no --workers): only validity is checked", () => {
    const results = run([measured("discovery", server("discovery", 20_000))]);
    expect(results.targets).toEqual([]);
    expect(checkFailures(results)).toEqual([]);
  });
});
