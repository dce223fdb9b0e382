/** The order of a bench run's measurements (bench/round-plan.ts): every window between two samples of its own floor. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planRounds, type PlannedScenario, type Step } from "../../bench/round-plan.ts";
import { SCENARIOS, SCENARIO_NAMES } from "../../bench/scenarios.ts";

const planned = (name: keyof typeof SCENARIOS, withCeiling = false, withPeer = false, withLdap = false): PlannedScenario => ({
  name,
  floor: SCENARIOS[name].floor,
  withCeiling,
  withPeer,
  withLdap,
  alternatesWith: SCENARIOS[name].alternatesWith,
});
const describeStep = (s: Step) => (s.kind === "floor" ? `floor ${s.floor}` : `${s.scenario} ${s.server} ${s.round}`);

describe("planRounds", () => {
  it("opens each round with a floor sample and closes the last with one, sharing samples between scenarios of one floor", () => {
    const plan = planRounds([planned("client_credentials", true), planned("code_flow_sso", true)], 2).map(describeStep);
    expect(plan).toEqual([
      "floor rs256",
      "client_credentials provider 0",
      "client_credentials ceiling 0",
      "floor rs256",
      "client_credentials ceiling 1",
      "client_credentials provider 1",
      "floor rs256",
      "code_flow_sso provider 0",
      "code_flow_sso ceiling 0",
      "floor rs256",
      "code_flow_sso ceiling 1",
      "code_flow_sso provider 1",
      "floor rs256",
    ]);
  });

  it("groups the scenarios by floor: bare node:http, then RS256, then scrypt, whatever order they come in", () => {
    const plan = planRounds([planned("code_flow_login"), planned("client_credentials"), planned("userinfo")], 1).map(describeStep);
    expect(plan).toEqual([
      "floor bare_http",
      "userinfo provider 0",
      "floor bare_http",
      "floor rs256",
      "client_credentials provider 0",
      "floor rs256",
      "floor scrypt",
      "code_flow_login provider 0",
      "floor scrypt",
    ]);
  });

  it("puts every window between a sample of its own floor before and after, with only its own round's windows in between", () => {
    const scenarios = fc
      .subarray([...SCENARIO_NAMES], { minLength: 1 })
      .chain((names) =>
        fc.tuple(
          fc.constant(names),
          fc.array(fc.boolean(), { minLength: names.length, maxLength: names.length }),
          fc.boolean(),
          fc.boolean(),
        ),
      );
    fc.assert(
      fc.property(scenarios, fc.integer({ min: 1, max: 5 }), ([names, ceilings, peer, ldap], rounds) => {
        const plan = planRounds(
          names.map((name, i) => planned(name, ceilings[i]!, peer, ldap && SCENARIOS[name].ldapDifference !== undefined)),
          rounds,
        );
        plan.forEach((step, i) => {
          if (step.kind !== "window") return;
          const floor = SCENARIOS[step.scenario].floor;
          for (const direction of [-1, 1]) {
            let j = i + direction;
            while (plan[j]?.kind === "window") {
              const other = plan[j] as Extract<Step, { kind: "window" }>;
              expect([other.scenario, other.round]).toEqual([step.scenario, step.round]);
              j += direction;
            }
            expect(plan[j]).toEqual({ kind: "floor", floor });
          }
        });
      }),
    );
  });

  it("alternates the rounds of refresh with JWT and with reference access tokens, each round between its own floor samples", () => {
    const scenarios = {
      refresh: planned("refresh", true, true),
      refresh_reference: planned("refresh_reference", false, true),
      client_credentials: planned("client_credentials"),
    };
    const plan = (names: Array<keyof typeof scenarios>) =>
      planRounds(
        names.map((name) => scenarios[name]),
        2,
      ).map(describeStep);
    expect(plan(["refresh", "refresh_reference", "client_credentials"])).toEqual([
      "floor rs256",
      "refresh provider 0",
      "refresh ceiling 0",
      "refresh peer 0",
      "floor rs256",
      "refresh_reference provider 0",
      "refresh_reference peer 0",
      "floor rs256",
      "refresh ceiling 1",
      "refresh peer 1",
      "refresh provider 1",
      "floor rs256",
      "refresh_reference peer 1",
      "refresh_reference provider 1",
      "floor rs256",
      "client_credentials provider 0",
      "floor rs256",
      "client_credentials provider 1",
      "floor rs256",
    ]);
    // Whichever of the two comes first, they stay together, in the order given.
    expect(plan(["refresh_reference", "client_credentials", "refresh"]).slice(0, 8)).toEqual([
      "floor rs256",
      "refresh_reference provider 0",
      "refresh_reference peer 0",
      "floor rs256",
      "refresh provider 0",
      "refresh ceiling 0",
      "refresh peer 0",
      "floor rs256",
    ]);
  });

  it("measures each server of each scenario once per round, rounds in order", () => {
    const plan = planRounds([planned("discovery"), planned("code_flow_sso", true)], 3);
    const rounds = (scenario: string, server: string) =>
      plan.flatMap((s) => (s.kind === "window" && s.scenario === scenario && s.server === server ? [s.round] : []));
    expect(rounds("discovery", "provider")).toEqual([0, 1, 2]);
    expect(rounds("discovery", "ceiling")).toEqual([]);
    expect(rounds("code_flow_sso", "provider")).toEqual([0, 1, 2]);
    expect(rounds("code_flow_sso", "ceiling")).toEqual([0, 1, 2]);
  });

  it("measures the provider on LDAP in the same rounds as the one on users.yaml, taking its turn at going first", () => {
    const plan = planRounds([planned("code_flow_login", false, false, true), planned("directory")], 2).map(describeStep);
    expect(plan).toEqual([
      "floor scrypt",
      "code_flow_login provider 0",
      "code_flow_login ldap 0",
      "floor scrypt",
      "code_flow_login ldap 1",
      "code_flow_login provider 1",
      "floor scrypt",
      "directory provider 0",
      "floor scrypt",
      "directory provider 1",
      "floor scrypt",
    ]);
  });

  it("rotates the provider, its ceiling and the peer through first, second and last place, one round after the other", () => {
    const plan = planRounds([planned("code_flow_sso", true, true), planned("discovery", false, true)], 3).map(describeStep);
    expect(plan).toEqual([
      "floor bare_http",
      "discovery provider 0",
      "discovery peer 0",
      "floor bare_http",
      "discovery peer 1",
      "discovery provider 1",
      "floor bare_http",
      "discovery provider 2",
      "discovery peer 2",
      "floor bare_http",
      "floor rs256",
      "code_flow_sso provider 0",
      "code_flow_sso ceiling 0",
      "code_flow_sso peer 0",
      "floor rs256",
      "code_flow_sso ceiling 1",
      "code_flow_sso peer 1",
      "code_flow_sso provider 1",
      "floor rs256",
      "code_flow_sso peer 2",
      "code_flow_sso provider 2",
      "code_flow_sso ceiling 2",
      "floor rs256",
    ]);
  });

  it("alternates the DPoP and private_key_jwt scenarios with their twin, sampling ES256 once per round after the block", () => {
    const dpop = { ...planned("client_credentials_dpop", false, true), costFloor: "es256" as const };
    const plan = planRounds([planned("client_credentials", false, true), dpop, planned("client_credentials_pkjwt", false, true)], 2);
    expect(plan.map(describeStep)).toEqual([
      "floor rs256",
      "client_credentials provider 0",
      "client_credentials peer 0",
      "floor rs256",
      "client_credentials_dpop provider 0",
      "client_credentials_dpop peer 0",
      "floor rs256",
      "client_credentials_pkjwt provider 0",
      "client_credentials_pkjwt peer 0",
      "floor rs256",
      "floor es256",
      "client_credentials peer 1",
      "client_credentials provider 1",
      "floor rs256",
      "client_credentials_dpop peer 1",
      "client_credentials_dpop provider 1",
      "floor rs256",
      "client_credentials_pkjwt peer 1",
      "client_credentials_pkjwt provider 1",
      "floor rs256",
      "floor es256",
    ]);
  });
});
