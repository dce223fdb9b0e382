import type { ScenarioName } from "./scenarios.ts";
import type { ScenarioMeasurement, TargetResult } from "./results.ts";

/**
 * The targets of the current stage, as ratios to this machine's floors (absolute numbers move with the
 * machine and its neighbours; ratios measured in the same run mostly do not). See docs/performance.md.
 */
export interface Target {
  scenario: ScenarioName;
  /** The ratio measured/floor must be at least this. */
  minRatio: number;
  /** How to write the target in reports. */
  label: string;
  /** What a reference implementation reaches, for context. */
  reference?: string;
}

/** --workers: N workers on N cores serve at least this many times one worker's client_credentials (issue 14 sets 1.7 for two). */
export const WORKER_SCALING_TARGET = 1.7;

export const TARGETS: readonly Target[] = [
  {
    scenario: "client_credentials",
    minRatio: 0.75,
    label: "client_credentials / RS256 floor ≥ 0.75",
    reference: "node-oidc-provider reaches ~0.60 on this kind of machine",
  },
  {
    scenario: "userinfo",
    minRatio: 0.12,
    label: "userinfo / node:http floor ≥ 0.12",
  },
  {
    scenario: "code_flow_sso",
    minRatio: 0.65,
    label: "code flow (SSO) / (RS256 floor ÷ 2) ≥ 0.65",
    reference: "each flow signs an ID token and an access token",
  },
];

/**
 * PASS/FAIL per target whose scenario was measured, by the median of its rounds' ratios; INVALID when a
 * round or a floor sample next to one was invalid.
 */
export function evaluateTargets(measurements: readonly ScenarioMeasurement[]): TargetResult[] {
  const results: TargetResult[] = [];
  for (const target of TARGETS) {
    const m = measurements.find((x) => x.scenario === target.scenario);
    if (!m) continue;
    const ratio = m.ratio?.median ?? null;
    const status = ratio === null ? "INVALID" : ratio >= target.minRatio ? "PASS" : "FAIL";
    results.push({ label: target.label, scenario: target.scenario, minRatio: target.minRatio, ratio, status, reference: target.reference });
  }
  return results;
}
