/**
 * The bench's report (bench/report.ts, bench/targets-report.ts): the peer's and the LDAP provider's rows, and
 * Portcullis ÷ ceiling, ÷ peer and on LDAP ÷ on users.yaml with their targets.
 */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load-protocol.ts";
import { parseOptions, type BenchOptions } from "../../bench/options.ts";
import { formatReport } from "../../bench/report.ts";
import type { BenchResults, FloorSample, ScenarioMeasurement, ServerMeasurement } from "../../bench/results.ts";
import { measureServer } from "../../bench/round-ratios.ts";
import { SCENARIOS, type ScenarioName } from "../../bench/scenarios.ts";
import { evaluateTargets } from "../../bench/targets.ts";

const sample: FloorSample = {
  perSecond: 4_000,
  cpuUsPerOp: 250,
  coreTaken: 0,
  problems: [],
  raw: { operations: 8_000, seconds: 2, perSecond: 4_000, perCpuSecond: 4_000, coreTaken: 0 },
};

function window(reqPerSec: number, serverCpuUsPerRequest: number, serverCpu: number, coreTaken: number): LoadResult {
  const latencyMs = { p50: 1, p90: 2, p99: 3, max: 4 };
  return {
    unit: "request",
    connections: 4,
    seconds: 3,
    ok: reqPerSec * 3,
    reqPerSec,
    latencyMs,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    warmupFailures: 0,
    statusCodes: {},
    serverCpu,
    serverCpuUsPerRequest,
    serverWait: 0,
    coreTaken,
    loadCpu: 0.1,
  };
}

/** One server's single round at this rate and CPU µs per unit, with this share of the core (and of it taken by others). */
const server = (label: string, rate: number, us: number, cpu = 0.99, coreTaken = 0): ServerMeasurement =>
  measureServer(label, [{ round: 0, result: window(rate, us, cpu, coreTaken), problems: [], floorSamples: [0, 1] }], [sample, sample], 1);

function measured(
  scenario: ScenarioName,
  provider: ServerMeasurement,
  others: { ceiling?: ServerMeasurement; peer?: ServerMeasurement; ldap?: ServerMeasurement },
): ScenarioMeasurement {
  return { ...provider, scenario, floor: SCENARIOS[scenario].floor, floorOps: 1, ...others };
}

function results(measurements: ScenarioMeasurement[], peer: boolean, ldap = true): BenchResults {
  const floor = {
    samples: [sample, sample],
    perSecond: { median: 4_000, min: 4_000, max: 4_000 },
    cpuUsPerOp: { median: 250, min: 250, max: 250 },
  };
  return {
    date: "2026-11-26T10:00:00.000Z",
    machine: { node: "v24", cpuModel: "test", cores: 2, loadAverage: [0, 0, 0] },
    code: { commit: "abc", uncommitted: [] },
    options: { ...(parseOptions([], {}) as BenchOptions), peer, ldap, rounds: 1 },
    floors: { rs256: floor, scrypt: floor },
    measurements,
    targets: evaluateTargets(measurements),
    notes: [],
  };
}

/** client_credentials with the peer: the provider at 2,600 req/s and 380 µs, the peer at 2,000 req/s and 480 µs. */
function withPeer(coreTaken: number, providerCpu: number, peerCpu: number): BenchResults {
  const peer = server("peer: node-oidc-provider", 2_000, 480, peerCpu, coreTaken);
  return results([measured("client_credentials", server("client_credentials", 2_600, 380, providerCpu, coreTaken), { peer })], true);
}

describe("formatReport with the peer", () => {
  it("shows the peer's row and the ÷ peer target with both rates, the quotient and the quotient by CPU", () => {
    const report = formatReport(withPeer(0, 0.99, 0.99));
    expect(report).toMatch(/^peer: node-oidc-provider +4 +2,000 /m);
    expect(report).toMatch(/client_credentials ÷ node-oidc-provider +2,600\/s +2,000\/s +1\.30 +1\.30–1\.30 +1\.26 +≥ 1\.1 +PASS/);
    expect(report).not.toContain("shows how the scheduler shared the core");
  });

  it("says when the two servers got very different shares of a core that other processes took", () => {
    const report = formatReport(withPeer(0.8, 0.15, 0.45));
    expect(report).toContain(
      "note: client_credentials ÷ node-oidc-provider: Portcullis got 15% of the server core, peer: node-oidc-provider 45%, with up to 80% taken by other processes",
    );
  });

  it("gives refresh with JWT and with reference access tokens a line each against the peer", () => {
    const refresh = (scenario: ScenarioName, rate: number) =>
      measured(scenario, server(SCENARIOS[scenario].label, rate, 500), { peer: server("peer: node-oidc-provider", 1_000, 600) });
    const report = formatReport(results([refresh("refresh", 1_210), refresh("refresh_reference", 1_130)], true));
    expect(report).toMatch(/^refresh \(JWT\) ÷ node-oidc-provider +1,210\/s +1,000\/s +1\.21 .* +≥ 1\.1 +PASS$/m);
    expect(report).toMatch(/^refresh \(reference\) ÷ node-oidc-provider +1,130\/s +1,000\/s +1\.13 .* +≥ 1\.1 +PASS$/m);
    expect(report).toContain("peer, refresh (reference): it keeps refresh tokens and opaque access tokens in memory");
  });
});

describe("formatReport's targets", () => {
  const ceilings = () =>
    results(
      [
        measured("client_credentials", server("client_credentials", 1_700, 500), {
          ceiling: server("ceiling: minimal node:http token handler", 2_000, 420),
        }),
        measured("code_flow_sso", server("code flow (SSO)", 850, 900), {
          ceiling: server("ceiling: minimal node:http code flow", 1_000, 760),
        }),
      ],
      false,
    );

  it("judges client_credentials ÷ its ceiling and reports the SSO code flow's quotient without a target", () => {
    const report = formatReport(ceilings());
    expect(report).toMatch(/^client_credentials ÷ its ceiling +1,700\/s +2,000\/s +0\.85 .* +≥ 0\.9 +FAIL$/m);
    expect(report).toMatch(/^code flow \(SSO\) ÷ its ceiling +850\/s +1,000\/s +0\.85 .* +- +no target$/m);
    expect(report).toContain("code flow (SSO) ÷ its ceiling: no target — its 0.9 was retired in issue 26");
  });

  it("prints no target on a floor: the stage's old floor targets are gone", () => {
    const report = formatReport(ceilings());
    expect(report).not.toMatch(/floor ≥|RS256 floor ÷ 2\) ≥|node:http floor ≥/);
    expect(report).toContain("The ratios to the floors above have no target: they are context.");
  });

  it("names the targets a run did not judge, and says when it judged none", () => {
    expect(formatReport(ceilings())).toContain(
      "Not judged in this run: ÷ node-oidc-provider (needs --peer); N workers ÷ one (needs --workers); code flow (SSO) on LDAP ÷ on users.yaml (needs code_flow_sso); refresh (JWT) on LDAP ÷ on users.yaml (needs refresh).",
    );
    const none = formatReport(results([measured("code_flow_sso", server("code flow (SSO)", 850, 900), {})], false, false));
    expect(none).toContain(
      "Not judged in this run: ÷ node-oidc-provider (needs --peer); client_credentials ÷ its ceiling (needs client_credentials with the ceilings); N workers ÷ one (needs --workers); on LDAP ÷ on users.yaml (needs --ldap). No target was judged: --check only checks that every measurement is valid.",
    );
  });
});

describe("formatReport on the LDAP directory", () => {
  const onLdap = () =>
    results(
      [
        measured("code_flow_sso", server("code flow (SSO)", 1_000, 900), { ldap: server("code flow (SSO) on LDAP", 960, 930) }),
        measured("code_flow_login", server("code flow (login)", 10, 95_000), { ldap: server("code flow (login) on LDAP", 150, 5_000) }),
        measured("directory", server("directory: search + bind", 2_000, 300), {}),
      ],
      false,
    );

  it("shows the provider on LDAP beside the one on users.yaml, and the quotient against its target", () => {
    const report = formatReport(onLdap());
    expect(report).toMatch(/^code flow \(SSO\) on LDAP +4 +960 /m);
    expect(report).toMatch(/^code flow \(SSO\) on LDAP ÷ on users\.yaml +960\/s +1,000\/s +0\.96 .* +≥ 0\.9 +PASS$/m);
    expect(report).toContain("on LDAP, code flow (SSO): it finds the person by sub in the directory's cache");
  });

  it("reports the login on LDAP ÷ on users.yaml without a target, and the directory's own cost with what its unit is", () => {
    const report = formatReport(onLdap());
    expect(report).toMatch(/^code flow \(login\) on LDAP ÷ on users\.yaml +150\/s +10\.0\/s +15\.00 .* +- +no target$/m);
    expect(report).toContain("code flow (login) on LDAP ÷ on users.yaml: no target — on users.yaml a login verifies a scrypt hash");
    expect(report).toMatch(/^directory: search \+ bind +4 +2,000 /m);
    expect(report).toContain("its server CPU is slapd's, the directory's own cost per check");
  });
});
