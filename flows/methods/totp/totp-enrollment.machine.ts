import { assertEvent, assign, fromPromise, setup } from "xstate";
import type { TotpEnrollment } from "./totp-enrollment-record.ts";
import type { MethodInput } from "../../../src/plugin-contract/index.ts";

/** A new secret: sealed, plus the single-use handle the page trades for its QR code. */
export interface NewSecret {
  pending: TotpEnrollment;
  displayHandle: string;
}

/** The confirmTotpSecret actor's verdict; after a wrong code, a fresh handle shows the same secret again. */
export type Confirmation = { accepted: true } | { accepted: false; displayHandle: string };

interface EnrollmentContext {
  sub: string;
  /** The secret being enrolled, sealed by the provider's SecretBox (never in plain text here: this context is persisted and rendered). */
  pending?: TotpEnrollment;
  displayHandle?: string;
  errorKey?: string;
}

/**
 * Enrolling TOTP: a new secret is created and shown (QR code and text), and the user types one valid
 * code from their app to prove it has the secret; only then is it recorded. RESTART creates another
 * secret (a reloaded page cannot show the old one again).
 */
export const totpEnrollmentMachine = setup({
  types: {
    context: {} as EnrollmentContext,
    input: {} as MethodInput,
    events: {} as { type: "SUBMIT_CODE"; code?: string } | { type: "RESTART" },
  },
  actors: {
    createTotpSecret: fromPromise<NewSecret, { sub: string }>(async () => {
      throw new Error("createTotpSecret is provided by the totp plugin");
    }),
    confirmTotpSecret: fromPromise<Confirmation, { sub: string; pending: TotpEnrollment; code: string }>(async () => {
      throw new Error("confirmTotpSecret is provided by the totp plugin");
    }),
  },
  guards: {
    hasCode: ({ event }) => event.type === "SUBMIT_CODE" && !!event.code?.trim(),
    isAccepted: (_, confirmation: Confirmation) => confirmation.accepted,
  },
  actions: {
    setNewSecret: assign((_, created: NewSecret) => ({
      pending: created.pending,
      displayHandle: created.displayHandle,
      errorKey: undefined,
    })),
    setWrongCode: assign({ errorKey: "method.totp.wrong" }),
    recordRefusal: assign((_, confirmation: Confirmation) => ({
      errorKey: "method.totp.wrong",
      displayHandle: confirmation.accepted ? undefined : confirmation.displayHandle,
    })),
  },
}).createMachine({
  id: "totpEnrollment",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "creatingSecret",
  states: {
    creatingSecret: {
      invoke: {
        src: "createTotpSecret",
        input: ({ context }) => ({ sub: context.sub }),
        onDone: { target: "awaitingCode", actions: { type: "setNewSecret", params: ({ event }) => event.output } },
      },
    },
    awaitingCode: {
      meta: { view: "enroll" },
      on: {
        SUBMIT_CODE: [{ guard: "hasCode", target: "confirming" }, { actions: "setWrongCode" }],
        RESTART: "creatingSecret",
      },
    },
    confirming: {
      invoke: {
        src: "confirmTotpSecret",
        input: ({ context, event }) => {
          assertEvent(event, "SUBMIT_CODE");
          // hasCode let only a typed code through.
          return { sub: context.sub, pending: context.pending!, code: event.code! };
        },
        onDone: [
          { guard: { type: "isAccepted", params: ({ event }) => event.output }, target: "enrolled" },
          { target: "awaitingCode", actions: { type: "recordRefusal", params: ({ event }) => event.output } },
        ],
      },
    },
    enrolled: { type: "final" },
  },
});
