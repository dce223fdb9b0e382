import type { AnyActorLogic, AnyStateMachine } from "xstate";
import type { Provider } from "../provider.ts";

/** The two method classes of the spec: a 2FA login needs one of each. */
export type FactorClass = "trusted" | "untrusted";

/** What a login flow passes to the method machine it invokes. */
export interface MethodInput {
  /** login_hint of the authorize request: prefills a user name. */
  loginHint?: string;
  /** The user a previous factor already identified (second factors verify this user, not a typed one). */
  sub?: string;
}

/** What a method machine outputs when the user passed it. */
export interface MethodOutput {
  sub: string;
}

/** Everything a plugin's actors may use. The plugin's own settings come from config/login.yaml. */
export interface PluginContext<Settings = Record<string, unknown>> {
  provider: Provider;
  settings: Settings;
}

/**
 * A factor method (DESIGN "Flows and factor plugins"): one folder flows/methods/<id>/ whose index.ts
 * default-exports this object. The machine is pure: it names its actors, and `actors()` supplies them
 * (all I/O lives there); the runtime wires them in with `machine.provide`. The machine's states name
 * their page fragment in `meta.view`, resolved against `views` of the plugin.
 */
export interface FactorPlugin<Settings = Record<string, unknown>> {
  id: string;
  class: FactorClass;
  /** The amr value the method adds to tokens (DESIGN: the method id unless configured otherwise). */
  amr: string;
  /** JSON Schema of the plugin's settings in config/login.yaml (`methods.<id>`). */
  configSchema: Record<string, unknown>;
  /** challenge → verify → done; its final output is a MethodOutput. */
  machine: AnyStateMachine;
  actors(context: PluginContext<Settings>): Record<string, AnyActorLogic>;
  /** Handlebars partials by view name (the values of `meta.view` in the machine), as template source. */
  views: Record<string, string>;
}
