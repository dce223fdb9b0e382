/** The most steps a path keeps: it is for reading, and the interaction record must stay small. */
const MAX_STEPS = 32;

/** Stands for the steps dropped from a long path (a user who kept switching methods). */
export const ELIDED = "…";

/**
 * Where a flow is, as its diagram names it: the active leaf state's path below the root, dotted
 * (`signingIn.password.verifying`); the regions of a parallel state joined by ` + `.
 */
export function stateName(value: unknown, prefix = ""): string {
  if (typeof value === "string") return prefix + value;
  if (typeof value !== "object" || value === null) return prefix.replace(/\.$/, "");
  return Object.entries(value)
    .map(([state, inner]) => stateName(inner, `${prefix}${state}.`))
    .join(" + ");
}

/**
 * The path with one more step: a state already last is not repeated (a page shown again), and a long
 * path keeps its first step and its latest ones, with ELIDED between.
 */
export function extendPath(path: readonly string[] | undefined, state: string): string[] {
  const steps = [...(path ?? [])];
  if (steps.at(-1) !== state) steps.push(state);
  return steps.length <= MAX_STEPS ? steps : [steps[0]!, ELIDED, ...steps.slice(-(MAX_STEPS - 2))];
}
