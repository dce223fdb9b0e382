import { createHash } from "node:crypto";
import type { AnyStateMachine } from "xstate";
import { createLoginFlow } from "../../flows/login.flow.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { Provider } from "../provider.ts";
import type { ConfiguredMethod } from "./method-plugins.ts";

/** A flow ready to run: its machine with every method machine and actor provided, and its definition hash. */
export interface RunnableFlow {
  id: string;
  machine: AnyStateMachine;
  hash: string;
  /** The methods the flow may invoke, by id (the runtime derives amr and acr from them, and finds their views). */
  methods: ReadonlyMap<string, ConfiguredMethod>;
}

/**
 * Builds the runnable flows named in login.yaml. This is where the runtime wires plugins in: a flow
 * invokes a method by id; here that id is bound to the plugin's machine, whose actors the plugin
 * supplies for this provider.
 */
export function buildLoginFlows(provider: Provider, login: LoginFile, methods: ReadonlyMap<string, ConfiguredMethod>): Map<string, RunnableFlow> {
  const flows = new Map<string, RunnableFlow>();
  const defaultMethods = new Map(login.default_flow.methods.map((id) => [id, methods.get(id)!]));
  flows.set("default", runnable("default", createLoginFlow([...defaultMethods.keys()]), defaultMethods, provider));
  return flows;
}

function runnable(id: string, flow: AnyStateMachine, methods: ReadonlyMap<string, ConfiguredMethod>, provider: Provider): RunnableFlow {
  const actors = Object.fromEntries(
    [...methods].map(([methodId, { plugin, settings }]) => [methodId, plugin.machine.provide({ actors: plugin.actors({ provider, settings }) })]),
  );
  const hash = createHash("sha256").update(describe(flow));
  for (const [methodId, { plugin }] of methods) hash.update(`\n${methodId}:`).update(describe(plugin.machine));
  return { id, machine: flow.provide({ actors }), hash: hash.digest("base64url").slice(0, 22), methods };
}

/** A stable text of a machine's structure: states, transitions, invokes, guards by name (functions drop out). */
function describe(machine: AnyStateMachine): string {
  return JSON.stringify(machine.definition);
}
