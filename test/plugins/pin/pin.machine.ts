import { assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/plugin-contract/factor-plugin.ts";

/**
 * A PIN method that Portcullis does not ship: it exists to prove that a factor method needs nothing
 * outside its folder and one line of login.yaml. The user identified by the flow types their PIN.
 */
export const pinMachine = setup({
  types: {
    context: {} as { sub: string; errorKey?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "SUBMIT_PIN"; pin?: string },
  },
  actors: {
    checkPin: fromPromise<{ ok: boolean }, { sub: string; pin: string }>(async () => {
      throw new Error("checkPin is provided by the pin plugin");
    }),
  },
  guards: {
    hasPin: ({ event }) => !!event.pin,
    isAccepted: (_, verdict: { ok: boolean }) => verdict.ok,
  },
  actions: {
    setWrongPin: assign({ errorKey: "method.pin.wrong" }),
  },
}).createMachine({
  id: "pin",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "awaitingPin",
  states: {
    awaitingPin: {
      meta: { view: "pin" },
      on: { SUBMIT_PIN: [{ guard: "hasPin", target: "checking" }, { actions: "setWrongPin" }] },
    },
    checking: {
      invoke: {
        src: "checkPin",
        input: ({ context, event }) => ({ sub: context.sub, pin: (event as { pin: string }).pin }),
        onDone: [
          { guard: { type: "isAccepted", params: ({ event }) => event.output }, target: "accepted" },
          { target: "awaitingPin", actions: "setWrongPin" },
        ],
      },
    },
    accepted: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub }),
});
