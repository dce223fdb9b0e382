import { createHash } from "node:crypto";
import { fromPromise, type AnyActorLogic, type AnyStateMachine } from "xstate";
import { createLoginFlow } from "../../flows/login.flow.ts";
import { createEnrollmentFlow } from "../../flows/enrollment.flow.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { LoadedMethod } from "./loaded-methods.ts";
import type { Provider } from "../provider.ts";
import { IDENTIFY_USER } from "../../flows/identify-user.machine.ts";
import { ENROLLED_METHODS, enrollmentActorId, type EnrolledMethodsInput } from "../../flows/first-use-enrollment.ts";
import { identifyUserRunnable } from "./identify-user.ts";

/** A flow ready to run: its machine with every method machine and actor provided, and its definition hash. */
export interface RunnableFlow {
  id: string;
  machine: AnyStateMachine;
  hash: string;
  /** The methods the flow may invoke, by id (the runtime derives amr and acr from them, and finds their views). */
  methods: ReadonlyMap<string, LoadedMethod>;
}

/** The id of the flow that enrolls a method. */
export const enrollmentFlowId = (methodId: string) => `enroll.${methodId}`;

/**
 * Builds the runnable flows: the login flows named in login.yaml, and one enrollment flow per method
 * that can be enrolled. This is where the runtime wires plugins in: a flow invokes a method by id;
 * here that id is bound to the plugin's machine, whose actors the plugin supplies for this provider.
 */
export function buildFlows(provider: Provider, login: LoginFile, methods: ReadonlyMap<string, LoadedMethod>): Map<string, RunnableFlow> {
  const flows = new Map<string, RunnableFlow>();
  const defaultMethods = new Map(login.default_flow.methods.map((id) => [id, methods.get(id)!]));
  flows.set("default", runnable("default", createLoginFlow(toFlowMethods(defaultMethods)), defaultMethods, (m) => m.plugin.machine, loginBuiltIns(provider, defaultMethods)));
  for (const [id, method] of methods) {
    if (!method.plugin.enrollment) continue;
    const flowId = enrollmentFlowId(id);
    flows.set(flowId, runnable(flowId, createEnrollmentFlow(id), new Map([[id, method]]), (m) => m.plugin.enrollment!));
  }
  return flows;
}

/** The methods as a flow sees them (flows/login-flow-setup.ts FlowMethod), in their order. */
export function toFlowMethods(methods: ReadonlyMap<string, LoadedMethod>): Parameters<typeof createLoginFlow>[0] {
  return [...methods].map(([id, m]) => ({ id, identifiesUser: m.plugin.identifiesUser, class: m.plugin.class, enrollable: m.plugin.enrollment !== undefined }));
}

/**
 * What a login flow over `methods` invokes besides their login machines: the identify step, the
 * enrolled-methods check and each enrollable method's enrollment machine under its own actor id
 * (flows/first-use-enrollment.ts: a second-factor flow enrolls on first use).
 */
export function loginBuiltIns(provider: Provider, methods: ReadonlyMap<string, LoadedMethod>): Record<string, AnyActorLogic> {
  const enrollments = [...methods].flatMap(([id, m]) => (m.plugin.enrollment ? [[enrollmentActorId(id), m.plugin.enrollment.provide({ actors: m.actors })] as const] : []));
  return {
    [IDENTIFY_USER]: identifyUserRunnable(provider),
    [ENROLLED_METHODS]: fromPromise<string[], EnrolledMethodsInput>(async ({ input }) => (await provider.enrollments.list(input.sub, input.methods)).map((e) => e.method)),
    ...Object.fromEntries(enrollments),
  };
}

export function runnable(
  id: string,
  flow: AnyStateMachine,
  methods: ReadonlyMap<string, LoadedMethod>,
  machineOf: (m: LoadedMethod) => AnyStateMachine,
  builtIn: Record<string, AnyActorLogic> = {},
): RunnableFlow {
  const actors = { ...builtIn, ...Object.fromEntries([...methods].map(([methodId, method]) => [methodId, machineOf(method).provide({ actors: method.actors })])) };
  const hash = createHash("sha256").update(describe(flow));
  for (const [methodId, method] of methods) hash.update(`\n${methodId}:`).update(describe(machineOf(method)));
  for (const [machineId, machine] of Object.entries(builtIn)) hash.update(`\n${machineId}:`).update(describe(machine));
  return { id, machine: flow.provide({ actors }), hash: hash.digest("base64url").slice(0, 22), methods };
}

/** A stable text of a machine's structure: states, transitions, invokes, guards by name (functions drop out); a promise actor has none. */
function describe(logic: AnyActorLogic): string {
  return JSON.stringify((logic as Partial<AnyStateMachine>).definition ?? null);
}
