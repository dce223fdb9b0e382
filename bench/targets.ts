import type { EndpointName } from "./endpoints.ts";
import type { EndpointMeasurement, TargetResult } from "./results.ts";

/**
 * The targets of the current stage, as ratios to this machine's floors (absolute numbers move with the
 * machine and its neighbours; ratios measured in the same run mostly do not). See docs/performance.md.
 */
export interface Target {
  endpoint: EndpointName;
  /** The ratio measured/floor must be at least this. */
  minRatio: number;
  /** How to write the target in reports. */
  label: string;
  /** What a reference implementation reaches, for context. */
  reference: string;
}

export const TARGETS: readonly Target[] = [
  {
    endpoint: "client_credentials",
    minRatio: 0.75,
    label: "client_credentials / RS256 floor ≥ 0.75",
    reference: "node-oidc-provider reaches ~0.60 on this kind of machine",
  },
];

/** PASS/FAIL per target whose endpoint was measured; INVALID when its measurement or floor was invalid. */
export function evaluateTargets(measurements: readonly EndpointMeasurement[]): TargetResult[] {
  const results: TargetResult[] = [];
  for (const target of TARGETS) {
    const m = measurements.find((x) => x.endpoint === target.endpoint);
    if (!m) continue;
    const status = m.ratio === null ? "INVALID" : m.ratio >= target.minRatio ? "PASS" : "FAIL";
    results.push({ label: target.label, endpoint: target.endpoint, minRatio: target.minRatio, ratio: m.ratio, status, reference: target.reference });
  }
  return results;
}
