import { createHash } from "node:crypto";
import type { AnyStateMachine } from "xstate";
import { createLoginFlow } from "../../flows/login.flow.ts";
import { createEnrollmentFlow } from "../../flows/enrollment.flow.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { LoadedMethod } from "./loaded-methods.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import { IDENTIFY_USER } from "../../flows/identify-user.machine.ts";
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
export function buildFlows(provider: { readonly users: Pick<UserDirectory, "findByUsername"> }, login: LoginFile, methods: ReadonlyMap<string, LoadedMethod>): Map<string, RunnableFlow> {
  const flows = new Map<string, RunnableFlow>();
  const builtIn = { [IDENTIFY_USER]: identifyUserRunnable(provider) };
  const defaultMethods = new Map(login.default_flow.methods.map((id) => [id, methods.get(id)!]));
  const flowMethods = [...defaultMethods].map(([id, m]) => ({ id, identifiesUser: m.plugin.identifiesUser }));
  flows.set("default", runnable("default", createLoginFlow(flowMethods), defaultMethods, (m) => m.plugin.machine, builtIn));
  for (const [id, method] of methods) {
    if (!method.plugin.enrollment) continue;
    const flowId = enrollmentFlowId(id);
    flows.set(flowId, runnable(flowId, createEnrollmentFlow(id), new Map([[id, method]]), (m) => m.plugin.enrollment!));
  }
  return flows;
}

function runnable(
  id: string,
  flow: AnyStateMachine,
  methods: ReadonlyMap<string, LoadedMethod>,
  machineOf: (m: LoadedMethod) => AnyStateMachine,
  builtIn: Record<string, AnyStateMachine> = {},
): RunnableFlow {
  const actors = { ...builtIn, ...Object.fromEntries([...methods].map(([methodId, method]) => [methodId, machineOf(method).provide({ actors: method.actors })])) };
  const hash = createHash("sha256").update(describe(flow));
  for (const [methodId, method] of methods) hash.update(`\n${methodId}:`).update(describe(machineOf(method)));
  for (const [machineId, machine] of Object.entries(builtIn)) hash.update(`\n${machineId}:`).update(describe(machine));
  return { id, machine: flow.provide({ actors }), hash: hash.digest("base64url").slice(0, 22), methods };
}

/** A stable text of a machine's structure: states, transitions, invokes, guards by name (functions drop out). */
function describe(machine: AnyStateMachine): string {
  return JSON.stringify(machine.definition);
}
