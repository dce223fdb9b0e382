import { assign, createMachine, setup, type AnyStateMachine } from "xstate";
import type { MethodInput, MethodOutput } from "../src/runtime/factor-plugin.ts";

/** What the login flow receives from the runtime. */
export interface LoginFlowInput {
  loginHint?: string;
}

/** The flow's result: who logged in and the methods they passed, in order (the runtime derives amr and acr). */
export interface LoginFlowOutput {
  sub: string;
  methods: string[];
}

interface LoginFlowContext {
  loginHint?: string;
  sub?: string;
  methods: string[];
}

type LoginFlowEvent = { type: "CHOOSE_METHOD"; method?: string };

// The flow names each method's machine by the method id; the runtime provides the plugin's machine.
// It never imports a method: a placeholder stands for each until then.
const methodPlaceholder: AnyStateMachine = createMachine({ id: "method-placeholder" });

/**
 * The default login flow (one factor): the user passes one of the configured first-factor methods,
 * starting with the first in config order, and may switch to another at any time. Built per method
 * list, so the statechart shows exactly the methods a deployment offers.
 */
export function createLoginFlow(methodIds: readonly string[]) {
  if (methodIds.length === 0) throw new Error("the login flow needs at least one method");
  const chooseMethod = methodIds.map((id) => ({ guard: { type: "isChosenMethod" as const, params: { method: id } }, target: `#login.${id}` }));
  const states = Object.fromEntries(
    methodIds.map((id) => [
      id,
      {
        invoke: {
          id: "method",
          src: id,
          input: ({ context }: { context: LoginFlowContext }): MethodInput => ({ loginHint: context.loginHint }),
          onDone: { target: "#login.authenticated", actions: { type: "recordMethod" as const, params: ({ event }: { event: { output: MethodOutput } }) => ({ method: id, sub: event.output.sub }) } },
        },
        on: { CHOOSE_METHOD: chooseMethod },
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
    actors: Object.fromEntries(methodIds.map((id) => [id, methodPlaceholder])),
    guards: {
      isChosenMethod: ({ event }, params: { method: string }) => event.method === params.method,
    },
    actions: {
      recordMethod: assign(({ context }, params: { method: string; sub: string }) => ({ sub: params.sub, methods: [...context.methods, params.method] })),
    },
  }).createMachine({
    id: "login",
    context: ({ input }) => ({ loginHint: input.loginHint, methods: [] }),
    initial: methodIds[0]!,
    states: { ...states, authenticated: { type: "final" } },
    output: ({ context }) => ({ sub: context.sub!, methods: context.methods }),
  });
}
