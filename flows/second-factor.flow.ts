import { ENROLLED_METHODS, enrollmentActorId, type EnrolledMethodsInput } from "./first-use-enrollment.ts";
import { IDENTIFY_USER } from "./identify-user.machine.ts";
import { initialContext, loginFlowSetup, loginOutput, methodInput, type FlowMethod, type LoginFlowContext } from "./login-flow-setup.ts";
import { methodGroup } from "./method-group.ts";

/**
 * A second-factor login (login_type Mfa, its variants, MyVendor; and a step-up of a one-factor
 * session to two factors, for the class it lacks): a third party did the first factor,
 * so login_hint names the user and the flow starts by identifying them from it (an unknown name gets a
 * decoy that no method accepts). Then one of the offered methods must prove that very user: a method
 * that finds out who the user is (a QR scan) and answers with someone else leads to `otherUser`.
 *
 * A user the runtime already knows (input `sub`: the vendor account a valid MyVendor signature vouched
 * for) is not identified again. Such a user with none of the offered methods enrolled is told so
 * (`noAuthenticator`), or, where the login type enrolls on first use, sets up the first enrollable
 * method inside the login (`enrolling`): confirming it is passing it. A user named only by login_hint
 * is never told what they have enrolled (anyone can write a login_hint), so that check is skipped.
 */
export function createSecondFactorFlow(methods: readonly FlowMethod[]) {
  const enrollable = methods.find((m) => m.enrollable);
  const unenrolled = [
    ...(enrollable ? [{ guard: "mayEnrollOnFirstUse" as const, target: "enrolling" }] : []),
    { target: "noAuthenticator" },
  ];
  return loginFlowSetup(methods).createMachine({
    id: "login",
    context: ({ input }) => initialContext(input),
    initial: "starting",
    states: {
      starting: { always: [{ guard: "isUserKnown", target: "checkingEnrollment" }, { target: "identifying" }] },
      identifying: {
        // A user the runtime already knows (the SSO session's, stepping up; a vendor account) is not identified again.
        always: { guard: "isUserKnown", target: "verifying" },
        invoke: {
          id: "method",
          src: IDENTIFY_USER,
          input: ({ context }) => ({ loginHint: context.loginHint }),
          onDone: { target: "verifying", actions: { type: "setIdentifiedUser", params: ({ event }) => event.output } },
        },
      },
      checkingEnrollment: {
        invoke: {
          src: ENROLLED_METHODS,
          input: ({ context }: { context: LoginFlowContext }): EnrolledMethodsInput => ({
            sub: context.sub!,
            methods: methods.map((m) => m.id),
          }),
          onDone: [
            { guard: { type: "hasEnrolledMethod", params: ({ event }) => ({ enrolled: event.output as string[] }) }, target: "verifying" },
            ...unenrolled,
          ],
        },
      },
      verifying: methodGroup("verifying", methods, { done: "#login.authenticated", otherUser: "#login.otherUser" }),
      ...(enrollable && {
        // A child state named after the method, so the page treats it as the current method.
        enrolling: {
          initial: enrollable.id,
          states: {
            [enrollable.id]: {
              invoke: {
                id: "method",
                src: enrollmentActorId(enrollable.id),
                input: methodInput,
                onDone: {
                  target: "#login.authenticated",
                  actions: {
                    type: "recordEnrolledMethod",
                    params: { method: enrollable.id, ...(enrollable.class && { class: enrollable.class }) },
                  },
                },
              },
            },
          },
        },
      }),
      // A known user with nothing to verify them by, where the login type does not enroll on first use:
      // told to ask their administrator, who enrolls one (portcullis methods enroll); then they try again.
      noAuthenticator: { meta: { view: "no-authenticator" }, on: { START_OVER: "starting" } },
      otherUser: { meta: { view: "other-user" }, on: { START_OVER: "verifying" } },
      authenticated: { type: "final" },
    },
    output: loginOutput,
  });
}
