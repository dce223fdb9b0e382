import type { AnyStateMachine, AnyStateNode } from "xstate";
import { mermaidStateId } from "./mermaid-text.ts";

/** How a state on the path looks in the diagram. */
const TAKEN_STYLE = "fill:#ffe08a,stroke:#b58900,stroke-width:3px,color:#000";

/**
 * A statechart (mermaidStatechart's source for `machine`) with the states of `path` highlighted: a
 * `taken` class on each one. A step is a dotted state path (`signingIn.password`, runtime/login-path.ts),
 * parallel regions joined by ` + `. Only simple states can be styled in a Mermaid state diagram, so a
 * compound state on the path is highlighted through the leaf states of it that were visited — and a
 * step the machine has no state for (a machine changed since) is left out rather than breaking the drawing.
 */
export function highlightPath(source: string, machine: AnyStateMachine, path: readonly string[]): string {
  const ids = new Set<string>();
  for (const step of path) {
    for (const state of step.split(" + ")) {
      const node = nodeAt(machine.root, state.split("."));
      if (node && Object.keys(node.states).length === 0 && source.includes(` as ${mermaidStateId(node.path)}`)) ids.add(mermaidStateId(node.path));
    }
  }
  if (ids.size === 0) return source;
  return `${source}  classDef taken ${TAKEN_STYLE}\n  class ${[...ids].join(",")} taken\n`;
}

function nodeAt(root: AnyStateNode, segments: readonly string[]): AnyStateNode | undefined {
  let node: AnyStateNode | undefined = root;
  for (const segment of segments) node = (node?.states as Record<string, AnyStateNode> | undefined)?.[segment];
  return node;
}
