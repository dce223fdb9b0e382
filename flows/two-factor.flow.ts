import { initialContext, loginFlowSetup, loginOutput, type FlowMethod } from "./login-flow-setup.ts";
import { identifyingState, methodGroup, needsIdentifying } from "./method-group.ts";
import type { FactorClass } from "../src/plugin-contract/declaration.ts";

/**
 * A two-factor login (login_type 2FA, acr_values 2fa): one method of each class, trusted (QR scan,
 * dynamic code, password) and untrusted (TOTP, FIDO2, SMS, e-mail, face), in either order. The first
 * factor is chosen among all offered methods; the second among the methods of the class still missing,
 * and it must prove the same user. A step-up starts with the session's user and only the missing class
 * (input `missingClasses`), so `routing` decides where a login starts and where it goes after each
 * factor.
 *
 * Only the first factor can meet a user the flow does not know yet: the flow's one identify step
 * serves its methods that verify a known user. The second factor's groups verify the user the first
 * factor (or the step-up's session) found; a flow that has a class left but knows nobody (an input no
 * step-up gives) starts with a first factor too.
 */
export function createTwoFactorFlow(methods: readonly FlowMethod[]) {
  const ofClass = (c: FactorClass) => methods.filter((m) => m.class === c);
  for (const c of ["trusted", "untrusted"] as const) if (ofClass(c).length === 0) throw new Error(`a two-factor flow needs a ${c} method`);
  const afterFactor = { done: "#login.routing", otherUser: "#login.otherUser" };
  const firstFactor = { ...afterFactor, identify: "#login.identifying" };
  return loginFlowSetup(methods).createMachine({
    id: "login",
    context: ({ input }) => initialContext(input),
    initial: "routing",
    states: {
      routing: {
        always: [
          { guard: "isMissingBoth", target: "firstFactor" },
          // A class left but nobody known (no step-up starts so: it brings the session's user): a first factor finds out who.
          { guard: "isUserUnknown", target: "firstFactor" },
          { guard: { type: "isMissing", params: { class: "trusted" } }, target: "trustedFactor" },
          { guard: { type: "isMissing", params: { class: "untrusted" } }, target: "untrustedFactor" },
          { target: "authenticated" },
        ],
      },
      firstFactor: methodGroup("firstFactor", methods, firstFactor),
      ...(needsIdentifying(methods) && { identifying: identifyingState("firstFactor", methods) }),
      trustedFactor: methodGroup("trustedFactor", ofClass("trusted"), afterFactor),
      untrustedFactor: methodGroup("untrustedFactor", ofClass("untrusted"), afterFactor),
      // A second factor passed by someone else than the first: nothing of it counts; the user starts that factor again.
      otherUser: { meta: { view: "other-user" }, on: { START_OVER: "routing" } },
      authenticated: { type: "final" },
    },
    output: loginOutput,
  });
}
