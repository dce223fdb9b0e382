import { assertEvent, assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/plugin-contract/index.ts";

/** The verifyFidoAssertion actor's verdict: every refusal (and a locked account) looks alike. */
export interface FidoVerdict {
  accepted: boolean;
}

/**
 * FIDO2 login: a challenge is prepared server-side for the user the flow identified (the context
 * keeps only its opaque handle, which the page's script trades for the WebAuthn options), the browser
 * asks the authenticator, and the page posts the assertion. A challenge is answered once: after a
 * refusal a new one is prepared. REFRESH prepares a new one too (the old one expired).
 */
export const fidoMachine = setup({
  types: {
    context: {} as { sub: string; challengeHandle?: string; errorKey?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "SUBMIT_ASSERTION"; credential?: string } | { type: "REFRESH" },
  },
  actors: {
    startFidoLogin: fromPromise<{ handle: string }, { sub: string }>(async () => {
      throw new Error("startFidoLogin is provided by the fido plugin");
    }),
    verifyFidoAssertion: fromPromise<FidoVerdict, { sub: string; handle: string; credential: string }>(async () => {
      throw new Error("verifyFidoAssertion is provided by the fido plugin");
    }),
  },
  guards: {
    hasCredential: ({ event }) => event.type === "SUBMIT_ASSERTION" && !!event.credential,
    isAccepted: (_, verdict: FidoVerdict) => verdict.accepted,
  },
  actions: {
    setChallenge: assign({ challengeHandle: (_, started: { handle: string }) => started.handle }),
    setRefused: assign({ errorKey: "method.fido.refused" }),
    clearError: assign({ errorKey: undefined }),
  },
}).createMachine({
  id: "fido",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "preparing",
  states: {
    preparing: {
      invoke: {
        src: "startFidoLogin",
        input: ({ context }) => ({ sub: context.sub }),
        onDone: { target: "awaitingAssertion", actions: { type: "setChallenge", params: ({ event }) => event.output } },
      },
    },
    awaitingAssertion: {
      meta: { view: "fido" },
      on: {
        SUBMIT_ASSERTION: [{ guard: "hasCredential", target: "verifying" }, { actions: "setRefused" }],
        REFRESH: { target: "preparing", actions: "clearError" },
      },
    },
    verifying: {
      invoke: {
        src: "verifyFidoAssertion",
        input: ({ context, event }) => {
          assertEvent(event, "SUBMIT_ASSERTION");
          // hasCredential let only a credential through.
          return { sub: context.sub, handle: context.challengeHandle!, credential: event.credential! };
        },
        onDone: [
          { guard: { type: "isAccepted", params: ({ event }) => event.output }, target: "verified" },
          { target: "preparing", actions: "setRefused" },
        ],
      },
    },
    verified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub }),
});
