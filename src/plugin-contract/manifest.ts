import type { AnyStateMachine } from "xstate";
import type { RecordKinds } from "../stores/record-kinds.ts";
import type { Logger } from "pino";
import type { PlugInConfigFile } from "../config/config-files.ts";
import type { Clock } from "../time/clock.ts";
import type { Store } from "../stores/store.ts";

/**
 * What every plug-in — a factor method (flows/methods/<id>/) or an extension (src/extensions/<id>/) —
 * declares about itself, as data, before any of its code runs. The composition root reads it: it
 * declares the record kinds to the store, has the plug-in's settings loaded and checked, mounts its
 * routes under the prefix and draws its machines. Neither the store nor the config loader knows which
 * plug-ins are installed.
 */
export interface PlugInManifest<
  Machines extends Readonly<Record<string, AnyStateMachine | undefined>> = Readonly<Record<string, AnyStateMachine>>,
> {
  /** Its name: a factor method's id in login.yaml (and its amr by default), an extension's in logs and diagrams (kebab-case). */
  readonly id: string;
  /** Every route it serves is under this path: `/methods/<id>` for a factor method. */
  readonly routePrefix: `/${string}`;
  /** The store namespaces it owns, beside the core's; durable ones survive a restart of the embedded store. */
  readonly recordKinds: RecordKinds;
  /** Where its settings live and the JSON Schema they must meet. */
  readonly config: PlugInConfig;
  /** Its state machines by name, drawn on /diagrams and path-tested like the login flows. */
  readonly machines: Machines;
}

/**
 * A factor method's settings are its entry in login.yaml (`methods.<id>`, beside the runtime's own keys
 * `from`, `amr`, `attempts`), validated by its schema once at start; an extension's are a file of its
 * own (in schemas/ its schema, with rules against the other files), part of the policy a reload swaps.
 */
export type PlugInConfig =
  | { readonly in: "login.yaml"; readonly schema: Record<string, unknown> }
  | { readonly in: "own file"; readonly file: PlugInConfigFile };

/**
 * What every plug-in is given, a factor method (PluginServices) and an extension (ExtensionContext)
 * alike; each kind adds what its life needs (factor-plugin.ts, extension.ts).
 */
export interface PlugInServices {
  readonly issuer: string;
  readonly clock: Clock;
  /** A child logger of the provider's. */
  readonly logger: Logger;
  /** The shared store: a plug-in uses the record kinds its manifest declares, and the core's it is told of. */
  readonly store: Store;
}
