import { assign, fromPromise, setup } from "xstate";
import type { MethodInput } from "../../../src/plugin-contract/factor-plugin.ts";

/** Choosing a PIN: typed twice; stored (hashed) by the savePin actor. */
export const pinEnrollmentMachine = setup({
  types: {
    context: {} as { sub: string; errorKey?: string },
    input: {} as MethodInput,
    events: {} as { type: "CHOOSE_PIN"; pin?: string; repeat?: string },
  },
  actors: {
    savePin: fromPromise<void, { sub: string; pin: string }>(async () => {
      throw new Error("savePin is provided by the pin plugin");
    }),
  },
  guards: {
    isValidChoice: ({ event }) => /^[0-9]{4,8}$/.test(event.pin ?? "") && event.pin === event.repeat,
  },
  actions: {
    setInvalidChoice: assign({ errorKey: "method.pin.invalid_choice" }),
  },
}).createMachine({
  id: "pinEnrollment",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "choosingPin",
  states: {
    choosingPin: {
      meta: { view: "choose" },
      on: { CHOOSE_PIN: [{ guard: "isValidChoice", target: "saving" }, { actions: "setInvalidChoice" }] },
    },
    saving: {
      invoke: {
        src: "savePin",
        input: ({ context, event }) => ({ sub: context.sub, pin: (event as { pin: string }).pin }),
        onDone: "enrolled",
      },
    },
    enrolled: { type: "final" },
  },
});
