/**
 * How a transition's guard reads on a diagram, from its definition:
 * - a named guard: `isX`;
 * - a parameterised guard `{ type, params }` with fixed params: `isChosenMethod(method=totp)`, keys
 *   sorted; params computed from the event (a function) cannot be shown, so just `isX`;
 * - the higher-order guards of xstate: `not isX`, `(isX and hasY)`, `(isX or hasY)`, `in(id)`;
 * - an inline function: its name, or `inline guard` (setup()-style machines name their guards).
 */
export function guardLabel(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === "string") return guard;
  if (typeof guard === "function") return functionGuardLabel(guard as GuardFunction);
  if (typeof guard === "object" && typeof (guard as { type?: unknown }).type === "string") {
    const { type, params } = guard as { type: string; params?: unknown };
    return isPlainObject(params) ? `${type}(${paramsLabel(params)})` : type;
  }
  return "guard";
}

/** The shape xstate gives `and`, `or`, `not` and `stateIn`: a function carrying its operands. */
interface GuardFunction {
  (...args: never[]): unknown;
  guards?: unknown[];
  stateValue?: unknown;
}

function functionGuardLabel(guard: GuardFunction): string {
  const operands = Array.isArray(guard.guards) ? guard.guards.map((g) => guardLabel(g) ?? "guard") : undefined;
  if (operands && guard.name === "not") return `not ${operands[0] ?? "guard"}`;
  if (operands && (guard.name === "and" || guard.name === "or")) return `(${operands.join(` ${guard.name} `)})`;
  // `#` would start an entity code in Mermaid: a state id is shown without it.
  if (guard.name === "stateIn")
    return `in(${typeof guard.stateValue === "string" ? guard.stateValue.replace(/^#/, "") : JSON.stringify(guard.stateValue)})`;
  // An arrow function written in place gets its property's name ("guard") or none.
  return guard.name && guard.name !== "anonymous" && guard.name !== "guard" ? guard.name : "inline guard";
}

function paramsLabel(params: Record<string, unknown>): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${key}=${typeof params[key] === "string" ? params[key] : JSON.stringify(params[key])}`)
    .join(", ");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
