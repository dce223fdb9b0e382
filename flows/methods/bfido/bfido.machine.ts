import { assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/plugin-contract/index.ts";

/** A new login QR: the page keeps its id and expiry only. */
export interface NewBfidoLogin {
  loginId: string;
  expiresAt: number;
}

/** Where a login QR stands, as the checkBfidoLogin actor found it in the store. */
export type CheckedBfidoLogin = { state: "verified"; sub: string } | { state: "pending" | "refused" | "expired" };

/**
 * Trusted-app FIDO2 login (acr_values must_bfido): the page shows an acmeauth://bfido QR code carrying
 * a WebAuthn challenge and long-polls it; the user's enrolled trusted app answers with an assertion by
 * the FIDO2 credential it registered, and the provider verifies it (@simplewebauthn/server). When the
 * login changes the page posts CHECK and the machine reads it from the store (never the page's word).
 * A refused answer or an expired QR gives a new QR code; REFRESH (the user's "new code") too.
 */
export const bfidoMachine = setup({
  types: {
    context: {} as { loginId?: string; expiresAt?: number; sub?: string; errorKey?: string },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "CHECK" } | { type: "REFRESH" },
  },
  actors: {
    createBfidoLogin: fromPromise<NewBfidoLogin, { previous?: string }>(async () => {
      throw new Error("createBfidoLogin is provided by the bfido plugin");
    }),
    checkBfidoLogin: fromPromise<CheckedBfidoLogin, { loginId: string }>(async () => {
      throw new Error("checkBfidoLogin is provided by the bfido plugin");
    }),
  },
  guards: {
    isVerified: (_, checked: CheckedBfidoLogin) => checked.state === "verified",
    isPending: (_, checked: CheckedBfidoLogin) => checked.state === "pending",
    isRefused: (_, checked: CheckedBfidoLogin) => checked.state === "refused",
  },
  actions: {
    setLogin: assign((_, created: NewBfidoLogin) => ({ loginId: created.loginId, expiresAt: created.expiresAt })),
    setSub: assign((_, checked: CheckedBfidoLogin) => (checked.state === "verified" ? { sub: checked.sub, errorKey: undefined } : {})),
    setRefused: assign({ errorKey: "method.bfido.refused" }),
    setExpired: assign({ errorKey: "method.bfido.expired" }),
    clearError: assign({ errorKey: undefined }),
  },
}).createMachine({
  id: "bfido",
  context: {},
  initial: "creating",
  states: {
    creating: {
      invoke: {
        src: "createBfidoLogin",
        input: ({ context }) => ({ previous: context.loginId }),
        onDone: { target: "awaitingAssertion", actions: { type: "setLogin", params: ({ event }) => event.output } },
      },
    },
    awaitingAssertion: {
      meta: { view: "scan" },
      on: { CHECK: "checking", REFRESH: { target: "creating", actions: "clearError" } },
    },
    checking: {
      invoke: {
        src: "checkBfidoLogin",
        input: ({ context }) => ({ loginId: context.loginId! }),
        onDone: [
          {
            guard: { type: "isVerified", params: ({ event }) => event.output },
            target: "verified",
            actions: { type: "setSub", params: ({ event }) => event.output },
          },
          { guard: { type: "isPending", params: ({ event }) => event.output }, target: "awaitingAssertion" },
          { guard: { type: "isRefused", params: ({ event }) => event.output }, target: "creating", actions: "setRefused" },
          { target: "creating", actions: "setExpired" },
        ],
      },
    },
    verified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub! }),
});
