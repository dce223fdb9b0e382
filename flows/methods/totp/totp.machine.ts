import { assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/runtime/factor-plugin.ts";

/** The checkTotpCode actor's verdict: wrong, replayed, locked out and not enrolled all look alike. */
export interface TotpVerdict {
  accepted: boolean;
}

/**
 * TOTP login: the user the flow identified types the current code of their authenticator app until
 * it is accepted. The code travels only in the SUBMIT_CODE event and the invoke's input; the actor
 * counts the attempt, checks the code within ±1 time step and claims its step, so a code works once.
 */
export const totpMachine = setup({
  types: {
    context: {} as { sub: string; errorKey?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "SUBMIT_CODE"; code?: string },
  },
  actors: {
    checkTotpCode: fromPromise<TotpVerdict, { sub: string; code: string }>(async () => {
      throw new Error("checkTotpCode is provided by the totp plugin");
    }),
  },
  guards: {
    hasCode: ({ event }) => !!event.code?.trim(),
    isAccepted: (_, verdict: TotpVerdict) => verdict.accepted,
  },
  actions: {
    setWrongCode: assign({ errorKey: "method.totp.wrong" }),
  },
}).createMachine({
  id: "totp",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "awaitingCode",
  states: {
    awaitingCode: {
      meta: { view: "totp" },
      on: {
        SUBMIT_CODE: [{ guard: "hasCode", target: "verifying" }, { actions: "setWrongCode" }],
      },
    },
    verifying: {
      invoke: {
        src: "checkTotpCode",
        input: ({ context, event }) => ({ sub: context.sub, code: (event as { code: string }).code }),
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
