import { assertEvent, assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../src/plugin-contract/declaration.ts";

/** The checkCode actor's verdict: wrong, replayed, locked out and not enrolled all look alike. */
export interface CodeVerdict {
  accepted: boolean;
}

/** What differs between methods whose user types a code: the machine id, the page and the error text. */
export interface TypedCodeMachineOptions {
  id: string;
  /** The plugin's view showing the code form (posts SUBMIT_CODE with `code`). */
  view: string;
  /** The UI string shown after a refused code. */
  wrongKey: string;
}

/**
 * A method where the user the flow identified types a code (TOTP, the trusted app's dynamic code):
 * awaitingCode → verifying → verified, back to awaitingCode with `wrongKey` after a refusal. The
 * plugin's checkCode actor counts the attempt first, then checks, so a wrong code, a replayed one, a
 * locked account and a user without an enrollment (or a decoy sub) all get the same answer. The code
 * travels only in the SUBMIT_CODE event and the invoke input, never in the context.
 */
export function createTypedCodeMachine(options: TypedCodeMachineOptions) {
  return setup({
    types: {
      context: {} as { sub: string; errorKey?: string },
      input: {} as MethodInput,
      output: {} as MethodOutput,
      events: {} as { type: "SUBMIT_CODE"; code?: string },
    },
    actors: {
      checkCode: fromPromise<CodeVerdict, { sub: string; code: string }>(async () => {
        throw new Error(`checkCode is provided by the ${options.id} plugin`);
      }),
    },
    guards: {
      hasCode: ({ event }) => !!event.code?.trim(),
      isAccepted: (_, verdict: CodeVerdict) => verdict.accepted,
    },
    actions: {
      setWrongCode: assign({ errorKey: options.wrongKey }),
    },
  }).createMachine({
    id: options.id,
    // The flow identifies the user before such a method runs: input.sub is always set (maybe a decoy).
    context: ({ input }) => ({ sub: input.sub ?? "" }),
    initial: "awaitingCode",
    states: {
      awaitingCode: {
        meta: { view: options.view },
        on: {
          SUBMIT_CODE: [{ guard: "hasCode", target: "verifying" }, { actions: "setWrongCode" }],
        },
      },
      verifying: {
        invoke: {
          src: "checkCode",
          input: ({ context, event }) => {
            assertEvent(event, "SUBMIT_CODE");
            return { sub: context.sub, code: String(event.code) };
          },
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
}
