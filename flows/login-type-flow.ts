import type { FlowMethod } from "./login-flow-setup.ts";
import { createLoginFlow } from "./login.flow.ts";
import { createSecondFactorFlow } from "./second-factor.flow.ts";
import { createTwoFactorFlow } from "./two-factor.flow.ts";

/**
 * The method flows by kind: the one-factor login (no login type, or acr_values such as must_bfido that
 * narrow its methods) and the flows a login type of login.yaml may name by its `flow:` value (eid is
 * no method flow: flows/eid.flow.ts brokers the login to an upstream eID provider).
 */
const FLOW_BUILDERS = {
  single_factor: createLoginFlow,
  two_factor: createTwoFactorFlow,
  second_factor: createSecondFactorFlow,
} as const;

export type MethodFlowKind = keyof typeof FLOW_BUILDERS;

export const isMethodFlowKind = (flow: string): flow is MethodFlowKind => Object.hasOwn(FLOW_BUILDERS, flow);

/** The machine of a login type: its flow over its methods, in its order. */
export function createLoginTypeFlow(flow: MethodFlowKind, methods: readonly FlowMethod[]) {
  return FLOW_BUILDERS[flow](methods);
}
