import { IDENTIFY_USER } from "./identify-user.machine.ts";
import { methodInput, type FlowMethod, type LoginFlowContext } from "./login-flow-setup.ts";
import type { MethodOutput } from "../src/plugin-contract/declaration.ts";

/** Where a method group's transitions lead. */
export interface GroupTargets {
  /** The state (`#login.<path>`) a passed method leads to. */
  done: string;
  /** Where a method passed by another user than the one the flow knows leads; absent: the flow never knows one first. */
  otherUser?: string;
  /**
   * The flow's one identify step (`#login.identifying`, identifyingState), which a method that verifies a
   * known user goes through first while the flow knows nobody; absent: the group is only ever entered
   * once the user is known (a second factor, a step-up, a vendor account).
   */
  identify?: string;
}

/** The history state of a group: where the identify step returns to, the method the user was trying. */
export const RESUME = "resume";

/** The done event of the method actor (every method, and the identify step, run as `method`). */
const METHOD_DONE = "xstate.done.actor.method";

/** Whether some of `methods` verifies a known user, so that a flow knowing nobody yet must identify the user first. */
export const needsIdentifying = (methods: readonly FlowMethod[]) => methods.some((m) => !m.identifiesUser);

/**
 * A state offering `methods` (one of them is to be passed), starting with the first: the user may
 * switch at any time. The switch is one transition of the group (`CHOOSE_METHOD` with the method as
 * its guard), which a diagram draws once, not once per pair of methods; and a passed method is handled
 * once too, by the group (every method runs as the actor `method`, and entering a method's state
 * records which one is tried), not by an edge per method. A method that verifies a known user, tried
 * while the flow knows nobody, sends the flow to its identify step (`targets.identify`) once, from the
 * group, which comes back to that method through the group's history state: so the identify step is
 * one state of the flow, however many methods and groups need it. `path` is the group's state path
 * below the machine's root (`signingIn`, `firstFactor`).
 */
export function methodGroup(path: string, methods: readonly FlowMethod[], targets: GroupTargets) {
  if (methods.length === 0) throw new Error(`method group ${path} needs at least one method`);
  const states = Object.fromEntries(methods.map((method) => [method.id, methodState(method)]));
  const recordMethod = {
    type: "recordMethod" as const,
    params: ({ context, event }: { context: LoginFlowContext; event: { output: MethodOutput } }) => ({
      ...context.trying!,
      output: event.output,
    }),
  };
  const passed = { target: targets.done, actions: recordMethod };
  const onDone =
    targets.otherUser === undefined
      ? passed
      : [
          {
            ...passed,
            guard: { type: "isSameUser" as const, params: ({ event }: { event: { output: MethodOutput } }) => ({ sub: event.output.sub }) },
          },
          { target: targets.otherUser },
        ];
  const on = { CHOOSE_METHOD: chooseMethod(path, methods), [METHOD_DONE]: onDone };
  if (targets.identify === undefined || !needsIdentifying(methods)) return { initial: methods[0]!.id, on, states };
  return {
    initial: methods[0]!.id,
    // Evaluated after every step inside the group: as soon as the method tried needs a user the flow does not know.
    always: { guard: "isUserNeeded" as const, target: targets.identify },
    on,
    states: { ...states, [RESUME]: { type: "history" as const } },
  };
}

/**
 * The flow's identify step for the methods of the group at `path` (whose `targets.identify` leads
 * here): the login_hint, else a user-name form; then back to the method the user was trying. From the
 * form the user may still switch to another method of the group, as from any of its methods.
 */
export function identifyingState(path: string, methods: readonly FlowMethod[]) {
  return {
    invoke: {
      id: "method",
      src: IDENTIFY_USER,
      input: ({ context }: { context: LoginFlowContext }) => ({ loginHint: context.loginHint }),
      onDone: {
        target: `#login.${path}.${RESUME}`,
        actions: { type: "setIdentifiedUser" as const, params: ({ event }: { event: { output: MethodOutput } }) => event.output },
      },
    },
    on: { CHOOSE_METHOD: chooseMethod(path, methods) },
  };
}

/** CHOOSE_METHOD into the group at `path`: one candidate per method, guarded by its id. */
function chooseMethod(path: string, methods: readonly FlowMethod[]) {
  return methods.map(({ id }) => ({ guard: { type: "isChosenMethod" as const, params: { method: id } }, target: `#login.${path}.${id}` }));
}

function methodState(method: FlowMethod) {
  const { id, identifiesUser } = method;
  const entry = {
    type: "tryMethod" as const,
    params: { method: id, ...(method.class && { class: method.class }), ...(!identifiesUser && { needsUser: true }) },
  };
  return { entry, invoke: { id: "method", src: id, input: methodInput } };
}
