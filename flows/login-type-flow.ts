import type { FlowMethod } from "./login-flow-setup.ts";
import { createSecondFactorFlow } from "./second-factor.flow.ts";
import { createTwoFactorFlow } from "./two-factor.flow.ts";

/** The flows a login type of login.yaml may name, by their `flow:` value (eid brokers elsewhere: no method flow). */
const FLOW_BUILDERS = {
  two_factor: createTwoFactorFlow,
  second_factor: createSecondFactorFlow,
} as const;

export type MethodFlowKind = keyof typeof FLOW_BUILDERS;

export const isMethodFlowKind = (flow: string): flow is MethodFlowKind => Object.hasOwn(FLOW_BUILDERS, flow);

/** The machine of a login type: its flow over its methods, in its order. */
export function createLoginTypeFlow(flow: MethodFlowKind, methods: readonly FlowMethod[]) {
  return FLOW_BUILDERS[flow](methods);
}
