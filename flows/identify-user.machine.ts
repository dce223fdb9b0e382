import { assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../src/plugin-contract/declaration.ts";

/** The id the login flow invokes this machine by (like a method, so its view shows in the method slot). */
export const IDENTIFY_USER = "identify";

/**
 * Who is logging in, for a method that verifies a known user rather than finding out who the user is
 * (a TOTP code, an SMS code, a FIDO2 key): the login_hint, else a user name typed into a form. It
 * always ends with a sub: an unknown or disabled name gets a decoy that no method ever accepts, so the
 * next page looks the same whether the name exists or not.
 */
export const identifyUserMachine = setup({
  types: {
    context: {} as { username?: string; sub?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "SUBMIT_USERNAME"; username?: string },
  },
  actors: {
    findUser: fromPromise<{ sub: string }, { username: string }>(async () => {
      throw new Error("findUser is provided by the runtime");
    }),
  },
  guards: {
    hasHint: ({ context }) => !!context.username,
    hasUsername: ({ event }) => !!event.username,
  },
  actions: {
    setUsername: assign({ username: ({ event }) => event.username }),
    setSub: assign({ sub: (_, found: { sub: string }) => found.sub }),
  },
}).createMachine({
  id: "identify",
  context: ({ input }) => ({ username: input.loginHint }),
  initial: "starting",
  states: {
    starting: { always: [{ guard: "hasHint", target: "finding" }, { target: "awaitingUsername" }] },
    awaitingUsername: {
      meta: { view: "username" },
      on: { SUBMIT_USERNAME: { guard: "hasUsername", target: "finding", actions: "setUsername" } },
    },
    finding: {
      invoke: {
        src: "findUser",
        input: ({ context }) => ({ username: context.username! }),
        onDone: { target: "identified", actions: { type: "setSub", params: ({ event }) => event.output } },
      },
    },
    identified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub! }),
});
