import { initialContext, loginFlowSetup, loginOutput, type FlowMethod } from "./login-flow-setup.ts";
import { identifyingState, methodGroup, needsIdentifying } from "./method-group.ts";

export type { FlowMethod, LoginFlowInput, LoginFlowOutput } from "./login-flow-setup.ts";

/**
 * The default login flow (one factor): the user passes one of the configured first-factor methods,
 * starting with the first in config order, and may switch to another at any time. A method that
 * verifies a known user runs after the flow's one identify-user step (login_hint, else a user-name
 * form), which returns to it. Built per method list, so the statechart shows exactly the methods a
 * deployment offers. The switch is one transition of the `signingIn` state, not one per pair of
 * methods, so the diagram shows it once; so is the way to the identify step.
 */
export function createLoginFlow(methods: readonly FlowMethod[]) {
  if (methods.length === 0) throw new Error("the login flow needs at least one method");
  return loginFlowSetup(methods).createMachine({
    id: "login",
    context: ({ input }) => initialContext(input),
    initial: "signingIn",
    states: {
      signingIn: methodGroup("signingIn", methods, { done: "#login.authenticated", identify: "#login.identifying" }),
      ...(needsIdentifying(methods) && { identifying: identifyingState("signingIn", methods) }),
      authenticated: { type: "final" },
    },
    output: loginOutput,
  });
}
