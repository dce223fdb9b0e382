import { assertEvent, assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/plugin-contract/index.ts";

/** The verdict of the checkPassword actor: a sub, or nothing (wrong, unknown and locked look alike). */
export interface PasswordVerdict {
  sub?: string;
}

/**
 * Trusted password: the user types a name and password until they match, within the per-account
 * attempt limit the checkPassword actor enforces. The password travels only in the SUBMIT event and
 * the invoke input; it never enters the context, and the runtime never persists mid-invoke.
 */
export const passwordMachine = setup({
  types: {
    context: {} as { username?: string; sub?: string; errorKey?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "SUBMIT_PASSWORD"; username?: string; password?: string },
  },
  actors: {
    checkPassword: fromPromise<PasswordVerdict, { username: string; password: string }>(async () => {
      throw new Error("checkPassword is provided by the password plugin");
    }),
  },
  guards: {
    hasCredentials: ({ event }) => !!event.username && !!event.password,
    isAccepted: (_, verdict: PasswordVerdict) => verdict.sub !== undefined,
  },
  actions: {
    setUsername: assign({ username: ({ event }) => event.username }),
    setSub: assign({ sub: (_, verdict: PasswordVerdict) => verdict.sub, errorKey: undefined }),
    setWrongPassword: assign({ errorKey: "method.password.wrong" }),
  },
}).createMachine({
  id: "password",
  context: ({ input }) => ({ username: input.loginHint }),
  initial: "awaitingCredentials",
  states: {
    awaitingCredentials: {
      meta: { view: "password" },
      on: {
        SUBMIT_PASSWORD: [{ guard: "hasCredentials", target: "verifying", actions: "setUsername" }, { actions: "setWrongPassword" }],
      },
    },
    verifying: {
      invoke: {
        src: "checkPassword",
        input: ({ event }) => {
          assertEvent(event, "SUBMIT_PASSWORD");
          // hasCredentials let only a user name and a password through.
          return { username: event.username!, password: event.password! };
        },
        onDone: [
          {
            guard: { type: "isAccepted", params: ({ event }) => event.output },
            target: "verified",
            actions: { type: "setSub", params: ({ event }) => event.output },
          },
          { target: "awaitingCredentials", actions: "setWrongPassword" },
        ],
      },
    },
    verified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub! }),
});
