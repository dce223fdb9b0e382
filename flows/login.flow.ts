import { assign, createMachine, setup, type AnyStateMachine } from "xstate";
import type { MethodInput, MethodOutput } from "../src/runtime/factor-plugin.ts";
import { IDENTIFY_USER } from "./identify-user.machine.ts";

/** What the login flow receives from the runtime. */
export interface LoginFlowInput {
  loginHint?: string;
}

/** The flow's result: who logged in and the methods they passed, in order (the runtime derives amr and acr). */
export interface LoginFlowOutput {
  sub: string;
  methods: string[];
  /** What methods reported beyond the user, by method id (the face check's `faceid`), for claims. */
  evidence?: Record<string, Record<string, unknown>>;
}

interface LoginFlowContext {
  loginHint?: string;
  sub?: string;
  methods: string[];
  evidence?: Record<string, Record<string, unknown>>;
}

type LoginFlowEvent = { type: "CHOOSE_METHOD"; method?: string };

// The flow names each method's machine by the method id; the runtime provides the plugin's machine.
// It never imports a method: a placeholder stands for each until then.
const methodPlaceholder: AnyStateMachine = createMachine({ id: "method-placeholder" });

/** A method as the flow sees it: its id, and whether it finds out who the user is itself. */
export interface FlowMethod {
  id: string;
  /** False for a method that verifies a known user (TOTP, SMS): the flow identifies the user first. */
  identifiesUser: boolean;
}

/**
 * The default login flow (one factor): the user passes one of the configured first-factor methods,
 * starting with the first in config order, and may switch to another at any time. A method that
 * verifies a known user runs after the identify-user step (login_hint, else a user-name form). Built
 * per method list, so the statechart shows exactly the methods a deployment offers. The switch is one
 * transition of the `signingIn` state, not one per pair of methods, so the diagram shows it once.
 */
export function createLoginFlow(methods: readonly FlowMethod[]) {
  if (methods.length === 0) throw new Error("the login flow needs at least one method");
  const chooseMethod = methods.map(({ id }) => ({ guard: { type: "isChosenMethod" as const, params: { method: id } }, target: `#login.signingIn.${id}` }));
  const invokeMethod = (id: string) => ({
    id: "method",
    src: id,
    input: ({ context }: { context: LoginFlowContext }): MethodInput => ({ loginHint: context.loginHint, sub: context.sub }),
    onDone: { target: "#login.authenticated", actions: { type: "recordMethod" as const, params: ({ event }: { event: { output: MethodOutput } }) => ({ method: id, output: event.output }) } },
  });
  const states = Object.fromEntries(
    methods.map(({ id, identifiesUser }) => [
      id,
      identifiesUser
        ? { invoke: invokeMethod(id) }
        : {
            initial: "identifying",
            states: {
              identifying: {
                always: { guard: "isUserKnown" as const, target: "verifying" },
                invoke: { id: "method", src: IDENTIFY_USER, input: ({ context }: { context: LoginFlowContext }): MethodInput => ({ loginHint: context.loginHint }), onDone: { target: "verifying", actions: "setIdentifiedUser" as const } },
              },
              verifying: { invoke: invokeMethod(id) },
            },
          },
    ]),
  );
  return setup({
    types: {
      context: {} as LoginFlowContext,
      input: {} as LoginFlowInput,
      output: {} as LoginFlowOutput,
      events: {} as LoginFlowEvent,
    },
    actors: Object.fromEntries([IDENTIFY_USER, ...methods.map(({ id }) => id)].map((id) => [id, methodPlaceholder])),
    guards: {
      isChosenMethod: ({ event }, params: { method: string }) => event.method === params.method,
      isUserKnown: ({ context }) => context.sub !== undefined,
    },
    actions: {
      setIdentifiedUser: assign({ sub: ({ event }) => (event as unknown as { output: MethodOutput }).output.sub }),
      recordMethod: assign(({ context }, params: { method: string; output: MethodOutput }) => {
        const { sub, ...evidence } = params.output;
        const kept = Object.keys(evidence).length > 0 ? { evidence: { ...context.evidence, [params.method]: evidence } } : {};
        return { sub, methods: [...context.methods, params.method], ...kept };
      }),
    },
  }).createMachine({
    id: "login",
    context: ({ input }) => ({ loginHint: input.loginHint, methods: [] }),
    initial: "signingIn",
    states: {
      signingIn: { initial: methods[0]!.id, on: { CHOOSE_METHOD: chooseMethod }, states },
      authenticated: { type: "final" },
    },
    output: ({ context }) => ({ sub: context.sub!, methods: context.methods, ...(context.evidence && { evidence: context.evidence }) }),
  });
}
