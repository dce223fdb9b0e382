import { assign, createMachine, setup, type AnyActorLogic, type AnyStateMachine } from "xstate";
import { IDENTIFY_USER } from "./identify-user.machine.ts";
import { ENROLLED_METHODS, enrolledMethodsPlaceholder, enrollmentActorId } from "./first-use-enrollment.ts";
import type { FactorClass, MethodInput, MethodOutput } from "../src/plugin-contract/declaration.ts";

/**
 * What every login flow (single factor, two factors, second factor) shares: its input, context, output
 * and events, and the guards and actions that run methods. The flows differ only in how they arrange
 * method groups (method-group.ts), so one setup serves them all and a guard means the same everywhere.
 */

/** What a login flow receives from the runtime. */
export interface LoginFlowInput {
  loginHint?: string;
  /**
   * The user already known: the SSO session's user when a login steps up; the vendor account
   * (`<client_id>:<account>`, the login plan's vendorAccount) of a MyVendor login, whose signature
   * vouched for it: the second-factor flow then skips identification.
   */
  sub?: string;
  /** The classes still to pass (two-factor flows; default both): a step-up passes only what the session lacks. */
  missingClasses?: readonly FactorClass[];
  /**
   * The login type's `enroll_on_first_use` (the plan's enrollOnFirstUse): a known user (`sub`) who has
   * none of the offered methods enrolled sets one up inside the login; without it they are told to ask
   * their administrator.
   */
  enrollOnFirstUse?: boolean;
  /** What the trusted app must sign into its assertion (acr_values app_gps / app_faceid); passed to every method. */
  app?: { gps: boolean; faceid: boolean };
}

/** The flow's result: who logged in and the methods they passed, in order (the runtime derives amr and acr). */
export interface LoginFlowOutput {
  sub: string;
  methods: string[];
  /** What methods reported beyond the user, by method id (the face check's `faceid`), for claims. */
  evidence?: Record<string, Record<string, unknown>>;
}

export interface LoginFlowContext {
  loginHint?: string;
  sub?: string;
  methods: string[];
  evidence?: Record<string, Record<string, unknown>>;
  missingClasses: FactorClass[];
  enrollOnFirstUse?: boolean;
  app?: { gps: boolean; faceid: boolean };
  /**
   * The method whose state was entered last: its group records it when the method actor is done, and
   * sends the flow to identify the user first when it verifies a known user (`needsUser`) and none is known.
   */
  trying?: { method: string; class?: FactorClass; needsUser?: boolean };
}

export type LoginFlowEvent = { type: "CHOOSE_METHOD"; method?: string } | { type: "START_OVER" };

/** A method as a flow sees it. */
export interface FlowMethod {
  id: string;
  /** False for a method that verifies a known user (TOTP, SMS): the flow identifies the user first. */
  identifiesUser: boolean;
  /** The method's class (two-factor flows group methods by it). */
  class?: FactorClass;
  /** Whether it has an enrollment machine (a second-factor flow can enroll it on first use). */
  enrollable?: boolean;
}

// The flow names each method's machine by the method id; the runtime provides the plugin's machine.
// It never imports a method: a placeholder stands for each until then.
const methodPlaceholder: AnyStateMachine = createMachine({ id: "method-placeholder" });

const BOTH_CLASSES: readonly FactorClass[] = ["trusted", "untrusted"];

/** The setup every login flow is built from, with a placeholder actor per method (and the identify step). */
export function loginFlowSetup(methods: readonly FlowMethod[]) {
  return setup({
    types: {
      context: {} as LoginFlowContext,
      input: {} as LoginFlowInput,
      output: {} as LoginFlowOutput,
      events: {} as LoginFlowEvent,
    },
    actors: Object.fromEntries<AnyActorLogic>([
      ...[IDENTIFY_USER, ...methods.map(({ id }) => id), ...methods.filter((m) => m.enrollable).map((m) => enrollmentActorId(m.id))].map(
        (id) => [id, methodPlaceholder] as const,
      ),
      [ENROLLED_METHODS, enrolledMethodsPlaceholder],
    ]),
    guards: {
      isChosenMethod: ({ event }, params: { method: string }) => event.type === "CHOOSE_METHOD" && event.method === params.method,
      isUserKnown: ({ context }) => context.sub !== undefined,
      isUserUnknown: ({ context }) => context.sub === undefined,
      /** The method tried verifies a known user, and the flow knows nobody yet: the identify step runs first. */
      isUserNeeded: ({ context }) => context.sub === undefined && context.trying?.needsUser === true,
      /** The method's user is the one the flow already knows (or the flow knew none): a second factor verifies the first's user. */
      isSameUser: ({ context }, params: { sub: string }) => context.sub === undefined || context.sub === params.sub,
      isMissingBoth: ({ context }) => BOTH_CLASSES.every((c) => context.missingClasses.includes(c)),
      isMissing: ({ context }, params: { class: FactorClass }) => context.missingClasses.includes(params.class),
      hasEnrolledMethod: (_, params: { enrolled: readonly string[] }) => params.enrolled.length > 0,
      mayEnrollOnFirstUse: ({ context }) => context.enrollOnFirstUse === true,
    },
    actions: {
      tryMethod: assign((_, params: { method: string; class?: FactorClass; needsUser?: boolean }) => ({ trying: params })),
      /** The identify step found the user (its output, as the onDone passes it). */
      setIdentifiedUser: assign((_, identified: MethodOutput) => ({ sub: identified.sub })),
      recordMethod: assign(({ context }, params: { method: string; class?: FactorClass; output: MethodOutput }) => {
        const { sub, ...evidence } = params.output;
        const kept = Object.keys(evidence).length > 0 ? { evidence: { ...context.evidence, [params.method]: evidence } } : {};
        const missingClasses = context.missingClasses.filter((c) => c !== params.class);
        return { sub, methods: [...context.methods, params.method], missingClasses, ...kept };
      }),
      /** A method enrolled inside the login: confirming it (a first TOTP code) is the known user passing it. */
      recordEnrolledMethod: assign(({ context }, params: { method: string; class?: FactorClass }) => ({
        methods: [...context.methods, params.method],
        missingClasses: context.missingClasses.filter((c) => c !== params.class),
      })),
    },
  });
}

/** The context a flow starts from. */
export function initialContext(input: LoginFlowInput): LoginFlowContext {
  return {
    loginHint: input.loginHint,
    sub: input.sub,
    methods: [],
    missingClasses: [...(input.missingClasses ?? BOTH_CLASSES)],
    ...(input.enrollOnFirstUse && { enrollOnFirstUse: true }),
    ...(input.app && { app: input.app }),
  };
}

/** The flow's output once authenticated. */
export function loginOutput({ context }: { context: LoginFlowContext }): LoginFlowOutput {
  return { sub: context.sub!, methods: context.methods, ...(context.evidence && { evidence: context.evidence }) };
}

/** The input a method machine gets: the hint, the user when one is known (a second factor verifies that user), what the app must sign. */
export const methodInput = ({ context }: { context: LoginFlowContext }): MethodInput => ({
  loginHint: context.loginHint,
  sub: context.sub,
  ...(context.app && { app: context.app }),
});
