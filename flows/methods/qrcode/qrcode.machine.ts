import { assign, fromPromise, setup } from "xstate";
import {
  wantsAppEvidence,
  type AppEvidence,
  type AppEvidenceProblem,
  type MethodInput,
  type MethodOutput,
} from "../../../src/plugin-contract/index.ts";

/** A new login QR: the page keeps its id and expiry only (the scan token is fetched by the page). */
export interface NewChallenge {
  challengeId: string;
  expiresAt: number;
}

/** Where a challenge stands, as the checkChallenge actor found it in the store. */
export type CheckedChallenge =
  | { state: "pending" }
  | { state: "scanned"; deviceName: string; number: string }
  | { state: "approved"; sub: string; evidence?: AppEvidence }
  | { state: "refused"; problem: AppEvidenceProblem }
  | { state: "rejected" | "denied" | "expired" };

/** What a new challenge asks of the app (MethodInput.app: acr_values app_gps / app_faceid). */
export interface ChallengeRequest {
  previous?: string;
  wanted?: MethodInput["app"];
}

/**
 * Trusted-app QR login: the page shows a QR code for a fresh challenge and long-polls it; when the
 * challenge changes, the page posts CHECK and the machine reads the challenge from the store (the
 * page's word is never taken for it). After the scan it shows the scanning device and the number the
 * user types into the app (number matching); the app's approval with that number logs the user in.
 * A wrong number or a denial spends the challenge and a new QR is shown; an expired QR is replaced
 * (the page posts REFRESH, as does the user's "new code" button). Only the challenge id, the device
 * name and the number are kept in the context: the scan token is never in it.
 *
 * When the login wants the app's evidence (input `app`: gps, faceid), the QR code asks the app for
 * it, a scan without it is refused (the page says why and shows a new QR), and the output carries it.
 */
export const qrcodeMachine = setup({
  types: {
    context: {} as {
      app?: MethodInput["app"];
      challengeId?: string;
      expiresAt?: number;
      deviceName?: string;
      number?: string;
      sub?: string;
      evidence?: AppEvidence;
      errorKey?: string;
    },
    input: {} as MethodInput,
    output: {} as MethodOutput,
    events: {} as { type: "CHECK" } | { type: "REFRESH" },
  },
  actors: {
    createChallenge: fromPromise<NewChallenge, ChallengeRequest>(async () => {
      throw new Error("createChallenge is provided by the qrcode plugin");
    }),
    checkChallenge: fromPromise<CheckedChallenge, { challengeId: string }>(async () => {
      throw new Error("checkChallenge is provided by the qrcode plugin");
    }),
  },
  guards: {
    isApproved: (_, checked: CheckedChallenge) => checked.state === "approved",
    isScanned: (_, checked: CheckedChallenge) => checked.state === "scanned",
    isPending: (_, checked: CheckedChallenge) => checked.state === "pending",
    isRejected: (_, checked: CheckedChallenge) => checked.state === "rejected",
    isDenied: (_, checked: CheckedChallenge) => checked.state === "denied",
    isRefused: (_, checked: CheckedChallenge) => checked.state === "refused",
  },
  actions: {
    setChallenge: assign((_, created: NewChallenge) => ({
      challengeId: created.challengeId,
      expiresAt: created.expiresAt,
      deviceName: undefined,
      number: undefined,
    })),
    setScan: assign((_, checked: CheckedChallenge) =>
      checked.state === "scanned" ? { deviceName: checked.deviceName, number: checked.number, errorKey: undefined } : {},
    ),
    setSub: assign((_, checked: CheckedChallenge) =>
      checked.state === "approved" ? { sub: checked.sub, evidence: checked.evidence, errorKey: undefined } : {},
    ),
    setRefused: assign((_, checked: CheckedChallenge) =>
      checked.state === "refused" ? { errorKey: `method.qrcode.refused_${checked.problem}` } : {},
    ),
    setWrongNumber: assign({ errorKey: "method.qrcode.wrong_number" }),
    setDenied: assign({ errorKey: "method.qrcode.denied" }),
    setExpired: assign({ errorKey: "method.qrcode.expired" }),
    clearError: assign({ errorKey: undefined }),
  },
}).createMachine({
  id: "qrcode",
  // Only a login that wants evidence keeps `app` (the scan page mentions it when present).
  context: ({ input }) => (wantsAppEvidence(input.app) ? { app: input.app } : {}),
  initial: "creating",
  states: {
    creating: {
      invoke: {
        src: "createChallenge",
        input: ({ context }) => ({ previous: context.challengeId, wanted: context.app }),
        onDone: { target: "awaitingScan", actions: { type: "setChallenge", params: ({ event }) => event.output } },
      },
    },
    awaitingScan: {
      meta: { view: "scan" },
      on: { CHECK: "checking", REFRESH: { target: "creating", actions: "clearError" } },
    },
    checking: {
      invoke: {
        src: "checkChallenge",
        input: ({ context }) => ({ challengeId: context.challengeId! }),
        onDone: [
          {
            guard: { type: "isApproved", params: ({ event }) => event.output },
            target: "verified",
            actions: { type: "setSub", params: ({ event }) => event.output },
          },
          {
            guard: { type: "isScanned", params: ({ event }) => event.output },
            target: "awaitingApproval",
            actions: { type: "setScan", params: ({ event }) => event.output },
          },
          { guard: { type: "isPending", params: ({ event }) => event.output }, target: "awaitingScan" },
          { guard: { type: "isRejected", params: ({ event }) => event.output }, target: "creating", actions: "setWrongNumber" },
          { guard: { type: "isDenied", params: ({ event }) => event.output }, target: "creating", actions: "setDenied" },
          {
            guard: { type: "isRefused", params: ({ event }) => event.output },
            target: "creating",
            actions: { type: "setRefused", params: ({ event }) => event.output },
          },
          { target: "creating", actions: "setExpired" },
        ],
      },
    },
    awaitingApproval: {
      meta: { view: "approve" },
      on: { CHECK: "checking", REFRESH: { target: "creating", actions: "clearError" } },
    },
    verified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub!, ...context.evidence }),
});
