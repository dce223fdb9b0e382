import { assign, fromPromise, setup } from "xstate";
import type { MethodInput } from "../../../src/plugin-contract/index.ts";

/** Where an enrollment stands, as the checkEnrollment actor found it in the store. */
export type CheckedEnrollment = { state: "pending" | "enrolled" | "expired"; deviceName?: string };

/**
 * Enrolling a trusted-app device for the signed-in user: the page shows an acmeauth://enroll QR code
 * with a one-time token and long-polls; the app posts its new public key with the token to the device
 * API, which records the device; the page posts CHECK and the machine, having read the enrollment
 * from the store, ends. Only the enrollment session's id is in the context: the token is a secret,
 * fetched by the signed-in user's browser from the plugin's routes. An expired QR is replaced
 * (REFRESH, also the user's "new code" button), which cancels the old token.
 */
export const qrcodeEnrollmentMachine = setup({
  types: {
    context: {} as { sub: string; sessionId?: string; expiresAt?: number; errorKey?: string },
    input: {} as MethodInput,
    events: {} as { type: "CHECK" } | { type: "REFRESH" },
  },
  actors: {
    startEnrollment: fromPromise<{ sessionId: string; expiresAt: number }, { sub: string; previous?: string }>(async () => {
      throw new Error("startEnrollment is provided by the qrcode plugin");
    }),
    checkEnrollment: fromPromise<CheckedEnrollment, { sub: string; sessionId: string }>(async () => {
      throw new Error("checkEnrollment is provided by the qrcode plugin");
    }),
  },
  guards: {
    isEnrolled: (_, checked: CheckedEnrollment) => checked.state === "enrolled",
    isPending: (_, checked: CheckedEnrollment) => checked.state === "pending",
  },
  actions: {
    setSession: assign((_, started: { sessionId: string; expiresAt: number }) => ({
      sessionId: started.sessionId,
      expiresAt: started.expiresAt,
    })),
    setExpired: assign({ errorKey: "method.qrcode.expired" }),
    clearError: assign({ errorKey: undefined }),
  },
}).createMachine({
  id: "qrcode-enrollment",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "starting",
  states: {
    starting: {
      invoke: {
        src: "startEnrollment",
        input: ({ context }) => ({ sub: context.sub, previous: context.sessionId }),
        onDone: { target: "awaitingDevice", actions: { type: "setSession", params: ({ event }) => event.output } },
      },
    },
    awaitingDevice: {
      meta: { view: "enroll" },
      on: { CHECK: "checking", REFRESH: { target: "starting", actions: "clearError" } },
    },
    checking: {
      invoke: {
        src: "checkEnrollment",
        input: ({ context }) => ({ sub: context.sub, sessionId: context.sessionId! }),
        onDone: [
          { guard: { type: "isEnrolled", params: ({ event }) => event.output }, target: "enrolled" },
          { guard: { type: "isPending", params: ({ event }) => event.output }, target: "awaitingDevice" },
          { target: "starting", actions: "setExpired" },
        ],
      },
    },
    enrolled: { type: "final" },
  },
});
