import { assertEvent, assign, fromPromise, setup } from "xstate";
import {
  normaliseCode,
  type CheckInput,
  type CheckVerdict,
  type MethodInput,
  type MethodOutput,
  type RequestFacts,
  type SendInput,
  type SendVerdict,
} from "../../src/plugin-contract/index.ts";

interface CodeLoginContext {
  sub: string;
  /** The code slot of this interaction (not a secret: it names where the code's hash is kept). */
  challenge?: string;
  /** A send went out (or looked as if it had): the page asks for the code. */
  codeSent: boolean;
  minutes?: number;
  noticeKey?: string;
  errorKey?: string;
}

type CodeLoginEvent =
  | ({ type: "SEND_CODE"; lang?: string } & Partial<RequestFacts>)
  | ({ type: "RESEND_CODE"; lang?: string } & Partial<RequestFacts>)
  | { type: "SUBMIT_CODE"; code?: string };

/**
 * A one-time code sent to the user's confirmed address (SMS, e-mail), for a user the flow already
 * identified. Nothing is sent until the user asks (a POST, so a prefetched link sends nothing, and
 * the send knows the client's address); a re-send supersedes the code and is throttled by the
 * actor. The code travels only in SUBMIT_CODE and the check's input. Built per method id, so each
 * method's machine names its own UI strings (`method.<id>.*`).
 */
export function createCodeLoginMachine(methodId: string) {
  const key = (name: string) => `method.${methodId}.${name}`;
  const problemKeys = { too_soon: key("too_soon"), limited: key("too_many"), failed: key("not_sent") } as const;
  return setup({
    types: {
      context: {} as CodeLoginContext,
      input: {} as MethodInput,
      output: {} as MethodOutput,
      events: {} as CodeLoginEvent,
    },
    actors: {
      sendCode: fromPromise<SendVerdict, SendInput>(async () => {
        throw new Error(`sendCode is provided by the ${methodId} plugin`);
      }),
      checkCode: fromPromise<CheckVerdict, CheckInput>(async () => {
        throw new Error(`checkCode is provided by the ${methodId} plugin`);
      }),
    },
    guards: {
      isSent: (_, verdict: SendVerdict) => verdict.outcome === "sent",
      hasSentCode: ({ context }) => context.codeSent,
      hasCodeShape: ({ event }) => event.type === "SUBMIT_CODE" && normaliseCode(event.code) !== undefined,
      isAccepted: (_, verdict: CheckVerdict) => verdict.ok,
    },
    actions: {
      recordSent: assign((_, verdict: SendVerdict) => ({
        challenge: verdict.challenge,
        minutes: verdict.minutes,
        codeSent: true,
        noticeKey: key("sent"),
        errorKey: undefined,
      })),
      setSendProblem: assign((_, verdict: SendVerdict) => ({
        challenge: verdict.challenge,
        noticeKey: undefined,
        errorKey: verdict.outcome === "sent" ? undefined : problemKeys[verdict.outcome],
      })),
      setWrongCode: assign({ noticeKey: undefined, errorKey: key("wrong") }),
    },
  }).createMachine({
    id: methodId,
    context: ({ input }) => ({ sub: input.sub!, codeSent: false }),
    initial: "awaitingSendRequest",
    states: {
      awaitingSendRequest: {
        meta: { view: "send" },
        on: { SEND_CODE: "sending" },
      },
      sending: {
        invoke: {
          src: "sendCode",
          input: ({ context, event }) => {
            // Entered by a send or a re-send: both carry the request's facts and language.
            assertEvent(event, ["SEND_CODE", "RESEND_CODE"]);
            return { sub: context.sub, challenge: context.challenge, clientAddress: event.clientAddress, lang: event.lang };
          },
          onDone: [
            {
              guard: { type: "isSent", params: ({ event }) => event.output },
              target: "awaitingCode",
              actions: { type: "recordSent", params: ({ event }) => event.output },
            },
            { guard: "hasSentCode", target: "awaitingCode", actions: { type: "setSendProblem", params: ({ event }) => event.output } },
            { target: "awaitingSendRequest", actions: { type: "setSendProblem", params: ({ event }) => event.output } },
          ],
        },
      },
      awaitingCode: {
        meta: { view: "code" },
        on: {
          SUBMIT_CODE: [{ guard: "hasCodeShape", target: "checking" }, { actions: "setWrongCode" }],
          RESEND_CODE: "sending",
        },
      },
      checking: {
        invoke: {
          src: "checkCode",
          input: ({ context, event }) => {
            assertEvent(event, "SUBMIT_CODE");
            return { sub: context.sub, challenge: context.challenge, code: event.code };
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
