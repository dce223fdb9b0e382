import { mermaidStateId } from "./mermaid-text.ts";

/** How a state on the path looks in the diagram. */
const TAKEN_STYLE = "fill:#ffe08a,stroke:#b58900,stroke-width:3px,color:#000";

/**
 * A statechart (mermaidStatechart's source) with the states of `path` highlighted: a `taken` class on
 * each one. A step is a dotted state path (`signingIn.password`, runtime/login-path.ts), parallel
 * regions joined by ` + `. Only simple states can be styled in a Mermaid state diagram, so only steps
 * that are among the machine's `leaves` (machine-archive.ts leafPaths: the current machine's, or an
 * archived version's) are highlighted — a compound state shows through the leaf states of it that were
 * visited — and a step the machine has no state for (a machine changed since) is left out rather than
 * breaking the drawing.
 */
export function highlightPath(source: string, leaves: ReadonlySet<string>, path: readonly string[]): string {
  const ids = new Set<string>();
  for (const step of path) {
    for (const state of step.split(" + ")) {
      const id = mermaidStateId(state.split("."));
      if (leaves.has(state) && source.includes(` as ${id}`)) ids.add(id);
    }
  }
  if (ids.size === 0) return source;
  return `${source}  classDef taken ${TAKEN_STYLE}\n  class ${[...ids].join(",")} taken\n`;
}
