import type { StepResult } from "../../../runtime/flow-step.ts";
import type { RunnableFlow } from "../../../runtime/login-flows.ts";
import type { LoginFlowContext } from "../../../../flows/login-flow-setup.ts";
import { IDENTIFY_USER } from "../../../../flows/identify-user.machine.ts";

/** A method the login page offers instead of the current one. */
export interface OtherMethod {
  id: string;
  labelKey: string;
}

/** The methods the user may switch to where the flow is, but the one it is in. */
export function otherMethods(result: StepResult, flow: RunnableFlow): OtherMethod[] {
  return groupMethods(result, flow)
    .filter((id) => id !== currentMethodId(result, flow.methods))
    .map((id) => ({ id, labelKey: `method.${id}.label` }));
}

/**
 * The method the flow is in: the outermost active state named after one of the flow's methods,
 * wherever the flow nests its methods; while the flow's identify step runs for a method that verifies
 * a known user (flows/method-group.ts), that method.
 */
function currentMethodId(result: StepResult, methods: ReadonlyMap<string, unknown>): string | undefined {
  const inMethod = activeStates(result.snapshot.value).find((state) => methods.has(state));
  if (inMethod !== undefined) return inMethod;
  return result.method?.id === IDENTIFY_USER ? (result.snapshot.context as Partial<LoginFlowContext>).trying?.method : undefined;
}

/**
 * The methods the user may switch to where the flow is: the method states beside the current one (a
 * two-factor flow's second factor offers only its class), or every method when no group is active.
 */
function groupMethods(result: StepResult, flow: RunnableFlow): string[] {
  let node: { states?: Record<string, unknown> } = flow.machine.root;
  for (const state of activeStates(result.snapshot.value)) {
    if (flow.methods.has(state)) return Object.keys(node.states ?? {}).filter((id) => flow.methods.has(id));
    node = (node.states?.[state] ?? {}) as typeof node;
  }
  return [...flow.methods.keys()];
}

/** The active states from the root down (the first region of a parallel state): `{ a: { b: "c" } }` → a, b, c. */
function activeStates(value: unknown): string[] {
  if (typeof value === "string") return [value];
  const [state, inner] = typeof value === "object" && value !== null ? (Object.entries(value)[0] ?? []) : [];
  return state === undefined ? [] : [state, ...activeStates(inner)];
}
