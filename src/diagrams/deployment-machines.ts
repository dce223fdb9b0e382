import type { Provider } from "../provider.ts";
import { enrollmentFlowId } from "../runtime/login-flows.ts";
import { catalogMachines, type DrawableMachine } from "./machine-catalog.ts";

/**
 * The machines a running provider runs: its login flows (`provider.policy.flows`, the machines with the
 * plugins wired in) and the factor methods its login.yaml configures (`provider.policy.methods`). The
 * per-method enrollment flows are one shape, drawn once as `enrollment`.
 */
export function deploymentMachines(provider: Provider): DrawableMachine[] {
  const enrollmentFlows = new Set([...provider.policy.methods.keys()].map(enrollmentFlowId));
  return catalogMachines({
    loginFlows: [...provider.policy.flows].filter(([id]) => !enrollmentFlows.has(id)).map(([id, flow]) => [id, flow.machine] as const),
    plugins: [...provider.policy.methods].map(([id, method]) => [id, method.plugin] as const),
  });
}
