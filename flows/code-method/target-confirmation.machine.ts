import { assertEvent, assign, fromPromise, setup } from "xstate";
import {
  normaliseCode,
  type CheckInput,
  type CheckVerdict,
  type MethodInput,
  type RequestFacts,
  type SendInput,
  type SendVerdict,
} from "../../src/plugin-contract/index.ts";

interface ConfirmationContext {
  sub: string;
  /** The address being confirmed, as the user typed it (normalised): shown back on the page. */
  target?: string;
  challenge?: string;
  codeSent: boolean;
  minutes?: number;
  noticeKey?: string;
  errorKey?: string;
}

type ConfirmationEvent =
  | ({ type: "SUBMIT_TARGET"; target?: string; lang?: string } & Partial<RequestFacts>)
  | ({ type: "RESEND_CODE"; lang?: string } & Partial<RequestFacts>)
  | { type: "SUBMIT_CODE"; code?: string }
  | { type: "CHANGE_TARGET" };

/**
 * Confirming an address for a code method (a phone number for SMS, an e-mail address): the user
 * types it, receives a code there, and types the code back; the confirmCode actor then records the
 * address the code was sent to — kept with the code in the store, not taken from the page — as the
 * method's enrollment. A re-send or a changed address reuses the interaction's code slot, so the
 * newest code supersedes every earlier one and the re-send throttle applies. `normaliseTarget`
 * gives the canonical form of a valid address, undefined for an invalid one.
 */
export function createTargetConfirmationMachine(methodId: string, normaliseTarget: (typed: string) => string | undefined) {
  const key = (name: string) => `method.${methodId}.${name}`;
  const problemKeys = { too_soon: key("too_soon"), limited: key("too_many"), failed: key("not_sent") } as const;
  return setup({
    types: {
      context: {} as ConfirmationContext,
      input: {} as MethodInput,
      events: {} as ConfirmationEvent,
    },
    actors: {
      sendConfirmation: fromPromise<SendVerdict, SendInput>(async () => {
        throw new Error(`sendConfirmation is provided by the ${methodId} plugin`);
      }),
      confirmCode: fromPromise<CheckVerdict, CheckInput>(async () => {
        throw new Error(`confirmCode is provided by the ${methodId} plugin`);
      }),
    },
    guards: {
      isValidTarget: ({ event }) =>
        event.type === "SUBMIT_TARGET" && typeof event.target === "string" && normaliseTarget(event.target) !== undefined,
      isSent: (_, verdict: SendVerdict) => verdict.outcome === "sent",
      hasSentCode: ({ context }) => context.codeSent,
      hasCodeShape: ({ event }) => event.type === "SUBMIT_CODE" && normaliseCode(event.code) !== undefined,
      isAccepted: (_, verdict: CheckVerdict) => verdict.ok,
    },
    actions: {
      setTarget: assign({
        target: ({ event }) => {
          assertEvent(event, "SUBMIT_TARGET");
          // isValidTarget let only a typed target through.
          return normaliseTarget(event.target ?? "");
        },
        codeSent: false,
      }),
      setInvalidTarget: assign({ noticeKey: undefined, errorKey: key("invalid_target") }),
      recordSent: assign((_, verdict: SendVerdict) => ({
        challenge: verdict.challenge,
        minutes: verdict.minutes,
        codeSent: true,
        noticeKey: key("confirm_sent"),
        errorKey: undefined,
      })),
      setSendProblem: assign((_, verdict: SendVerdict) => ({
        challenge: verdict.challenge,
        noticeKey: undefined,
        errorKey: verdict.outcome === "sent" ? undefined : problemKeys[verdict.outcome],
      })),
      setWrongCode: assign({ noticeKey: undefined, errorKey: key("wrong") }),
      clearMessages: assign({ noticeKey: undefined, errorKey: undefined }),
    },
  }).createMachine({
    id: `${methodId}Confirmation`,
    context: ({ input }) => ({ sub: input.sub!, codeSent: false }),
    initial: "awaitingTarget",
    states: {
      awaitingTarget: {
        meta: { view: "target" },
        on: { SUBMIT_TARGET: [{ guard: "isValidTarget", target: "sending", actions: "setTarget" }, { actions: "setInvalidTarget" }] },
      },
      sending: {
        invoke: {
          src: "sendConfirmation",
          input: ({ context, event }) => {
            // Entered by a submitted target or a re-send: both carry the request's facts and language.
            assertEvent(event, ["SUBMIT_TARGET", "RESEND_CODE"]);
            return {
              sub: context.sub,
              target: context.target,
              challenge: context.challenge,
              clientAddress: event.clientAddress,
              lang: event.lang,
            };
          },
          onDone: [
            {
              guard: { type: "isSent", params: ({ event }) => event.output },
              target: "awaitingCode",
              actions: { type: "recordSent", params: ({ event }) => event.output },
            },
            { guard: "hasSentCode", target: "awaitingCode", actions: { type: "setSendProblem", params: ({ event }) => event.output } },
            { target: "awaitingTarget", actions: { type: "setSendProblem", params: ({ event }) => event.output } },
          ],
        },
      },
      awaitingCode: {
        meta: { view: "confirm" },
        on: {
          SUBMIT_CODE: [{ guard: "hasCodeShape", target: "confirming" }, { actions: "setWrongCode" }],
          RESEND_CODE: "sending",
          CHANGE_TARGET: { target: "awaitingTarget", actions: "clearMessages" },
        },
      },
      confirming: {
        invoke: {
          src: "confirmCode",
          input: ({ context, event }) => {
            assertEvent(event, "SUBMIT_CODE");
            return { sub: context.sub, challenge: context.challenge, code: event.code };
          },
          onDone: [
            { guard: { type: "isAccepted", params: ({ event }) => event.output }, target: "confirmed" },
            { target: "awaitingCode", actions: "setWrongCode" },
          ],
        },
      },
      confirmed: { type: "final" },
    },
  });
}
