import { IDENTIFY_USER } from "./identify-user.machine.ts";
import { initialContext, loginFlowSetup, loginOutput, type FlowMethod } from "./login-flow-setup.ts";
import { methodGroup } from "./method-group.ts";

/**
 * A second-factor login (login_type Mfa, its variants, MyVendor; and a step-up of a one-factor
 * session to two factors, for the class it lacks): a third party did the first factor,
 * so login_hint names the user and the flow starts by identifying them from it (an unknown name gets a
 * decoy that no method accepts). Then one of the offered methods must prove that very user: a method
 * that finds out who the user is (a QR scan) and answers with someone else leads to `otherUser`.
 */
export function createSecondFactorFlow(methods: readonly FlowMethod[]) {
  return loginFlowSetup(methods).createMachine({
    id: "login",
    context: ({ input }) => initialContext(input),
    initial: "identifying",
    states: {
      identifying: {
        // A user the runtime already knows (the SSO session's, stepping up; a vendor account) is not identified again.
        always: { guard: "isUserKnown", target: "verifying" },
        invoke: { id: "method", src: IDENTIFY_USER, input: ({ context }) => ({ loginHint: context.loginHint }), onDone: { target: "verifying", actions: "setIdentifiedUser" } },
      },
      verifying: methodGroup("verifying", methods, { done: "#login.authenticated", otherUser: "#login.otherUser" }),
      otherUser: { meta: { view: "other-user" }, on: { START_OVER: "verifying" } },
      authenticated: { type: "final" },
    },
    output: loginOutput,
  });
}
