import type { FactorClass } from "../src/plugin-contract/factor-plugin.ts";
import { initialContext, loginFlowSetup, loginOutput, type FlowMethod } from "./login-flow-setup.ts";
import { methodGroup } from "./method-group.ts";

/**
 * A two-factor login (login_type 2FA, acr_values 2fa): one method of each class, trusted (QR scan,
 * dynamic code, password) and untrusted (TOTP, FIDO2, SMS, e-mail, face), in either order. The first
 * factor is chosen among all offered methods; the second among the methods of the class still missing,
 * and it must prove the same user. A step-up starts with the session's user and only the missing class
 * (input `missingClasses`), so `routing` decides where a login starts and where it goes after each
 * factor.
 */
export function createTwoFactorFlow(methods: readonly FlowMethod[]) {
  const ofClass = (c: FactorClass) => methods.filter((m) => m.class === c);
  for (const c of ["trusted", "untrusted"] as const) if (ofClass(c).length === 0) throw new Error(`a two-factor flow needs a ${c} method`);
  const afterFactor = { done: "#login.routing", otherUser: "#login.otherUser" };
  return loginFlowSetup(methods).createMachine({
    id: "login",
    context: ({ input }) => initialContext(input),
    initial: "routing",
    states: {
      routing: {
        always: [
          { guard: "isMissingBoth", target: "firstFactor" },
          { guard: { type: "isMissing", params: { class: "trusted" } }, target: "trustedFactor" },
          { guard: { type: "isMissing", params: { class: "untrusted" } }, target: "untrustedFactor" },
          { target: "authenticated" },
        ],
      },
      firstFactor: methodGroup("firstFactor", methods, afterFactor),
      trustedFactor: methodGroup("trustedFactor", ofClass("trusted"), afterFactor),
      untrustedFactor: methodGroup("untrustedFactor", ofClass("untrusted"), afterFactor),
      // A second factor passed by someone else than the first: nothing of it counts; the user starts that factor again.
      otherUser: { meta: { view: "other-user" }, on: { START_OVER: "routing" } },
      authenticated: { type: "final" },
    },
    output: loginOutput,
  });
}
