import { assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/runtime/factor-plugin.ts";

/**
 * Trusted-app dynamic code: the identified user types the 6-digit code their enrolled phone shows.
 * The checkCode actor counts the attempt first, then checks; a wrong code, a replayed one, a locked
 * account and a user without a phone (or a decoy sub) all get the same answer. The code travels only
 * in the SUBMIT_CODE event and the invoke input, never in the context.
 */
export const appotpMachine = setup({
  types: {
    context: {} as { sub: string; errorKey?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "SUBMIT_CODE"; code?: string },
  },
  actors: {
    checkCode: fromPromise<{ accepted: boolean }, { sub: string; code: string }>(async () => {
      throw new Error("checkCode is provided by the appotp plugin");
    }),
  },
  guards: {
    hasCode: ({ event }) => typeof event.code === "string" && event.code.length > 0,
    isAccepted: (_, verdict: { accepted: boolean }) => verdict.accepted,
  },
  actions: {
    setWrongCode: assign({ errorKey: "method.appotp.wrong" }),
  },
}).createMachine({
  id: "appotp",
  // The flow identifies the user before this method runs: input.sub is always set (maybe a decoy).
  context: ({ input }) => ({ sub: input.sub ?? "" }),
  initial: "awaitingCode",
  states: {
    awaitingCode: {
      meta: { view: "code" },
      on: {
        SUBMIT_CODE: [{ guard: "hasCode", target: "verifying" }, { actions: "setWrongCode" }],
      },
    },
    verifying: {
      invoke: {
        src: "checkCode",
        input: ({ context, event }) => ({ sub: context.sub, code: String((event as { code?: string }).code) }),
        onDone: [
          { guard: { type: "isAccepted", params: ({ event }) => event.output }, target: "verified" },
          { target: "awaitingCode", actions: "setWrongCode" },
        ],
      },
    },
    verified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub }),
});
