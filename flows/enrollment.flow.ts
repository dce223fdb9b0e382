import { createMachine, setup, type AnyStateMachine } from "xstate";
import type { MethodInput } from "../src/plugin-contract/declaration.ts";

/** What the enrollment flow receives from the runtime: the signed-in user. */
export interface EnrollmentFlowInput {
  sub: string;
}

/** Who enrolled which method (the same shape as a login flow's output, so the runtime reads both alike). */
export interface EnrollmentFlowOutput {
  sub: string;
  methods: string[];
}

const enrollmentPlaceholder: AnyStateMachine = createMachine({ id: "enrollment-placeholder" });

/**
 * Enrolling one method for the signed-in user: the method's own enrollment machine runs as the
 * flow's `method` child (so its views and events reach it as a login method's do), and the flow ends
 * when it does. The runtime binds the method id to the plugin's enrollment machine.
 */
export function createEnrollmentFlow(methodId: string) {
  return setup({
    types: { context: {} as { sub: string }, input: {} as EnrollmentFlowInput, output: {} as EnrollmentFlowOutput },
    actors: { [methodId]: enrollmentPlaceholder },
  }).createMachine({
    id: "enrollment",
    context: ({ input }) => ({ sub: input.sub }),
    initial: "enrolling",
    states: {
      enrolling: {
        invoke: {
          id: "method",
          src: methodId,
          input: ({ context }: { context: { sub: string } }): MethodInput => ({ sub: context.sub }),
          onDone: "enrolled",
        },
      },
      enrolled: { type: "final" },
    },
    output: ({ context }) => ({ sub: context.sub, methods: [methodId] }),
  });
}
