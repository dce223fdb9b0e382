import type { AnyStateMachine } from "xstate";
import type { PolicySnapshot } from "../snapshot/policy-snapshot.ts";
import { DEFAULT_FLOW_ID, loginTypeFlowId, type RunnableFlow } from "../runtime/login-flows.ts";
import { INSTALLED_EXTENSIONS } from "../extensions/installed-extensions.ts";
import type { LoginType } from "../login-policy/login-policy.ts";
import { catalogMachines, loginDiagramName, type DrawableMachine, type LoginFlowKind } from "./machine-catalog.ts";

/**
 * The machines a policy snapshot runs: its login flows (`policy.flows`, the machines with the
 * plugins wired in: the default flow and each login type's, the eID login's included, with the login
 * type's plan) and the factor methods its login.yaml configures (`policy.flows.methods`). The
 * per-method enrollment flows are one shape, drawn once as `enrollment`.
 */
export function deploymentMachines(policy: PolicySnapshot): DrawableMachine[] {
  const { flows } = policy;
  const loginFlows: [string, AnyStateMachine, LoginFlowKind, LoginType?][] = [
    [DEFAULT_FLOW_ID, flows.get(DEFAULT_FLOW_ID)!.machine, "login"],
  ];
  for (const [name, flow, kind] of loginTypeFlows(policy))
    loginFlows.push([name, flow.machine, kind, policy.login.loginTypes.get(name.toLowerCase())]);
  return catalogMachines({
    loginFlows,
    plugins: [...flows.methods].map(([id, method]) => [id, method.plugin] as const),
    extensions: INSTALLED_EXTENSIONS,
  });
}

/**
 * The diagram of each login flow drawn, by its machine's definition hash: `/diagrams/machine/<hash>`
 * leads to it, which is how an audit trace links the machine version a login ran.
 */
export function diagramsByHash(policy: PolicySnapshot): Map<string, string> {
  const byHash = new Map([[policy.flows.get(DEFAULT_FLOW_ID)!.hash, loginDiagramName(DEFAULT_FLOW_ID)]]);
  for (const [name, flow] of loginTypeFlows(policy)) byHash.set(flow.hash, loginDiagramName(name));
  return byHash;
}

/** Each login type's flow (two-factor, second-factor, eID) by login type name, with its diagram kind: what the diagrams draw beside the default flow. */
function loginTypeFlows(policy: PolicySnapshot): [string, RunnableFlow, LoginFlowKind][] {
  const found: [string, RunnableFlow, LoginFlowKind][] = [];
  for (const name of Object.keys(policy.config.login.login_types ?? {})) {
    const flow = policy.flows.get(loginTypeFlowId(name));
    if (flow?.kind !== undefined && flow.kind !== "single_factor") found.push([name, flow, `login_${flow.kind}`]);
  }
  return found;
}
