import { assertEvent, assign, fromPromise, setup } from "xstate";
import type { MethodInput } from "../../../src/plugin-contract/index.ts";

/**
 * Registering a security key or passkey for the signed-in user: a registration challenge is prepared
 * server-side (the context keeps its handle), the page's script asks the browser to create a
 * credential and posts it; a verified one is added to the user's credentials. After a refusal, or on
 * REFRESH, a new challenge is prepared.
 */
export const fidoEnrollmentMachine = setup({
  types: {
    context: {} as { sub: string; challengeHandle?: string; errorKey?: string },
    input: {} as MethodInput,
    events: {} as { type: "SUBMIT_CREDENTIAL"; credential?: string } | { type: "REFRESH" },
  },
  actors: {
    startFidoRegistration: fromPromise<{ handle: string }, { sub: string }>(async () => {
      throw new Error("startFidoRegistration is provided by the fido plugin");
    }),
    verifyFidoRegistration: fromPromise<{ accepted: boolean }, { sub: string; handle: string; credential: string }>(async () => {
      throw new Error("verifyFidoRegistration is provided by the fido plugin");
    }),
  },
  guards: {
    hasCredential: ({ event }) => event.type === "SUBMIT_CREDENTIAL" && !!event.credential,
    isAccepted: (_, verdict: { accepted: boolean }) => verdict.accepted,
  },
  actions: {
    setChallenge: assign({ challengeHandle: (_, started: { handle: string }) => started.handle }),
    setNotRegistered: assign({ errorKey: "method.fido.enroll_refused" }),
    clearError: assign({ errorKey: undefined }),
  },
}).createMachine({
  id: "fidoEnrollment",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "preparing",
  states: {
    preparing: {
      invoke: {
        src: "startFidoRegistration",
        input: ({ context }) => ({ sub: context.sub }),
        onDone: { target: "awaitingCredential", actions: { type: "setChallenge", params: ({ event }) => event.output } },
      },
    },
    awaitingCredential: {
      meta: { view: "enroll" },
      on: {
        SUBMIT_CREDENTIAL: [{ guard: "hasCredential", target: "registering" }, { actions: "setNotRegistered" }],
        REFRESH: { target: "preparing", actions: "clearError" },
      },
    },
    registering: {
      invoke: {
        src: "verifyFidoRegistration",
        input: ({ context, event }) => {
          assertEvent(event, "SUBMIT_CREDENTIAL");
          // hasCredential let only a credential through.
          return { sub: context.sub, handle: context.challengeHandle!, credential: event.credential! };
        },
        onDone: [
          { guard: { type: "isAccepted", params: ({ event }) => event.output }, target: "registered" },
          { target: "preparing", actions: "setNotRegistered" },
        ],
      },
    },
    registered: { type: "final" },
  },
});
