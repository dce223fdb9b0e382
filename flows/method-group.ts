import type { MethodOutput } from "../src/plugin-contract/factor-plugin.ts";
import { IDENTIFY_USER } from "./identify-user.machine.ts";
import { methodInput, type FlowMethod, type LoginFlowContext } from "./login-flow-setup.ts";

/** Where a method group's transitions lead. */
export interface GroupTargets {
  /** The state (`#login.<path>`) a passed method leads to. */
  done: string;
  /** Where a method passed by another user than the one the flow knows leads; absent: the flow never knows one first. */
  otherUser?: string;
}

/**
 * A state offering `methods` (one of them is to be passed), starting with the first: the user may
 * switch at any time. The switch is one transition of the group (`CHOOSE_METHOD` with the method as
 * its guard), which a diagram draws once, not once per pair of methods; and a passed method is handled
 * once too, by the group (every method runs as the actor `method`, and entering a method's state
 * records which one is tried), not by an edge per method. A method that verifies a known user runs
 * after the identify-user step unless the flow already knows the user. `path` is the group's state
 * path below the machine's root (`signingIn`, `factors.untrusted`).
 */
export function methodGroup(path: string, methods: readonly FlowMethod[], targets: GroupTargets) {
  if (methods.length === 0) throw new Error(`method group ${path} needs at least one method`);
  const chooseMethod = methods.map(({ id }) => ({ guard: { type: "isChosenMethod" as const, params: { method: id } }, target: `#login.${path}.${id}` }));
  const states = Object.fromEntries(methods.map((method) => [method.id, methodState(method)]));
  const recordMethod = { type: "recordMethod" as const, params: ({ context, event }: { context: LoginFlowContext; event: { output: MethodOutput } }) => ({ ...context.trying!, output: event.output }) };
  const passed = { target: targets.done, actions: recordMethod };
  const onDone = targets.otherUser === undefined ? passed : [{ ...passed, guard: { type: "isSameUser" as const, params: ({ event }: { event: { output: MethodOutput } }) => ({ sub: event.output.sub }) } }, { target: targets.otherUser }];
  return { initial: methods[0]!.id, on: { CHOOSE_METHOD: chooseMethod, [METHOD_DONE]: onDone }, states };
}

/** The done event of the method actor (every method, and the identify step, run as `method`). */
const METHOD_DONE = "xstate.done.actor.method";

function methodState(method: FlowMethod) {
  const { id, identifiesUser } = method;
  const entry = { type: "tryMethod" as const, params: { method: id, ...(method.class && { class: method.class }) } };
  const invokeMethod = { id: "method", src: id, input: methodInput };
  if (identifiesUser) return { entry, invoke: invokeMethod };
  return {
    entry,
    initial: "identifying",
    states: {
      identifying: {
        always: { guard: "isUserKnown" as const, target: "verifying" },
        invoke: { id: "method", src: IDENTIFY_USER, input: ({ context }: { context: LoginFlowContext }) => ({ loginHint: context.loginHint }), onDone: { target: "verifying", actions: { type: "setIdentifiedUser" as const, params: ({ event }: { event: { output: MethodOutput } }) => event.output } } },
      },
      verifying: { invoke: invokeMethod },
    },
  };
}
