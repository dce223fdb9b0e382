import type { AnyStateMachine } from "xstate";
import type { RecordKinds } from "../stores/record-kinds.ts";
import type { PlugInConfig, PlugInManifest } from "./manifest.ts";

/** Where every factor method's routes are mounted: `/methods/<id>`. */
export const methodRoutePrefix = (methodId: string): `/${string}` => `/methods/${methodId}`;

/**
 * A factor method's machines: `login` (challenge → verify → done; input MethodInput, final output
 * MethodOutput) and, when the method can be enrolled by its user, `enrollment` (input `{ sub }`,
 * final once the enrollment is recorded).
 */
export type MethodMachines = { readonly login: AnyStateMachine; readonly enrollment?: AnyStateMachine };

/** A factor method's manifest: a plug-in's, with its settings in login.yaml (`methods.<id>`). */
export interface MethodManifest extends PlugInManifest<MethodMachines> {
  readonly config: Extract<PlugInConfig, { in: "login.yaml" }>;
}

/**
 * The manifest of a factor method from what is its own: its id, the JSON Schema of its settings
 * (without the runtime's keys `from`, `amr`, `attempts`), its machines and the record kinds it keeps.
 */
export function methodManifest(declared: {
  id: string;
  schema: Record<string, unknown>;
  machines: MethodMachines;
  recordKinds?: RecordKinds;
}): MethodManifest {
  return {
    id: declared.id,
    routePrefix: methodRoutePrefix(declared.id),
    recordKinds: declared.recordKinds ?? {},
    config: { in: "login.yaml", schema: declared.schema },
    machines: declared.machines,
  };
}
