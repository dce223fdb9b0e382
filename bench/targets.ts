import type { EndpointName } from "./endpoints.ts";

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
