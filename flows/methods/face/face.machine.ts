import { assertEvent, assign, fromPromise, setup } from "xstate";
import type { MethodInput, MethodOutput } from "../../../src/plugin-contract/index.ts";

/** The face check of a login, as the spec's `faceid` claim has it: the service's verdict and key, and when (Unix seconds). */
export interface FaceResult {
  result: string;
  key: string;
  time: number;
}

/** What verifyFace answers: a match (with its record), or why not. A locked account answers `no_match`. */
export interface FaceVerdict {
  outcome: "match" | "no_match" | "invalid_frame" | "unavailable";
  faceid?: FaceResult;
}

/** The method's output: the user, and the face check that passed (kept for the `faceid` claim). */
export interface FaceOutput extends MethodOutput {
  faceid: FaceResult;
}

interface FaceContext {
  sub: string;
  faceid?: FaceResult;
  errorKey?: string;
}

/**
 * Face recognition for a user the flow identified: the page takes one camera frame and posts it;
 * the verifyFace actor asks the configured face service whether it shows this user. The frame
 * travels only in SUBMIT_FRAME and the invoke input, never in context (which is persisted).
 */
export const faceMachine = setup({
  types: {
    context: {} as FaceContext,
    input: {} as MethodInput,
    output: {} as FaceOutput,
    events: {} as { type: "SUBMIT_FRAME"; image?: string },
  },
  actors: {
    verifyFace: fromPromise<FaceVerdict, { sub: string; image: string }>(async () => {
      throw new Error("verifyFace is provided by the face plugin");
    }),
  },
  guards: {
    hasFrame: ({ event }) => typeof event.image === "string" && event.image.length > 0,
    isMatch: (_, verdict: FaceVerdict) => verdict.outcome === "match" && verdict.faceid !== undefined,
    isInvalidFrame: (_, verdict: FaceVerdict) => verdict.outcome === "invalid_frame",
    isUnavailable: (_, verdict: FaceVerdict) => verdict.outcome === "unavailable",
  },
  actions: {
    recordFaceResult: assign({ faceid: (_, verdict: FaceVerdict) => verdict.faceid, errorKey: undefined }),
    setNoFrame: assign({ errorKey: "method.face.no_frame" }),
    setNotRecognised: assign({ errorKey: "method.face.not_recognised" }),
    setUnavailable: assign({ errorKey: "method.face.unavailable" }),
  },
}).createMachine({
  id: "face",
  context: ({ input }) => ({ sub: input.sub! }),
  initial: "awaitingFrame",
  states: {
    awaitingFrame: {
      meta: { view: "capture" },
      on: { SUBMIT_FRAME: [{ guard: "hasFrame", target: "verifying" }, { actions: "setNoFrame" }] },
    },
    verifying: {
      invoke: {
        src: "verifyFace",
        input: ({ context, event }) => {
          assertEvent(event, "SUBMIT_FRAME");
          // hasFrame let only a frame through.
          return { sub: context.sub, image: event.image! };
        },
        onDone: [
          {
            guard: { type: "isMatch", params: ({ event }) => event.output },
            target: "verified",
            actions: { type: "recordFaceResult", params: ({ event }) => event.output },
          },
          { guard: { type: "isInvalidFrame", params: ({ event }) => event.output }, target: "awaitingFrame", actions: "setNoFrame" },
          { guard: { type: "isUnavailable", params: ({ event }) => event.output }, target: "awaitingFrame", actions: "setUnavailable" },
          { target: "awaitingFrame", actions: "setNotRecognised" },
        ],
      },
    },
    verified: { type: "final" },
  },
  output: ({ context }) => ({ sub: context.sub, faceid: context.faceid! }),
});
