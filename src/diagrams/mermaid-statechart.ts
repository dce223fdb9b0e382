import type { AnyStateMachine, AnyStateNode } from "xstate";
import { guardLabel } from "./guard-label.ts";
import { mermaidLabel, mermaidStateId } from "./mermaid-text.ts";

/**
 * A Mermaid `stateDiagram-v2` of an XState v5 machine, drawn from `machine.root` (the very definition
 * that runs): every state, nested states inside their parent, each level's initial state (`[*] -->`),
 * final states (`--> [*]`), and every transition labelled with what takes it (a switch among a state's
 * children — one event, one guard naming the child — drawn once, to that state: see switchGuard) — the event, `always`,
 * `done: <actor>` / `error: <actor>` for an invoked actor's onDone / onError, `after <ms>ms`, `done`
 * for a compound state's onDone — and its guard in brackets (`[else]` for the fallback after guarded
 * candidates). A transition without a target is drawn as a loop on its state. A state's `meta.view`
 * (the page it shows) is a note beside it.
 *
 * The output is deterministic: states in definition order (the author's), events sorted, the
 * candidates of one event in their order (it decides which guard is tried first).
 */
export function mermaidStatechart(machine: AnyStateMachine): string {
  const ids = assignIds(machine.root);
  const lines = ["stateDiagram-v2"];
  if (machine.root.type === "parallel") {
    // Mermaid separates regions (`--`) only inside a composite state: draw the machine itself as one.
    ids.set(machine.root, "s_");
    lines.push(`  state "${mermaidLabel(machine.root.key)}" as s_ {`);
    declareChildren(machine.root, ids, lines, 2);
    lines.push("  }", "  [*] --> s_");
  } else {
    declareChildren(machine.root, ids, lines, 1);
  }
  for (const node of [machine.root, ...descendants(machine.root)]) {
    if (!ids.has(node)) continue;
    for (const edge of edgesOf(node, ids)) lines.push(`  ${edge}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Every state below `node`, depth first in definition order. */
function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((child) => [child, ...descendants(child)]);
}

/** A Mermaid id per state node; two paths that read alike after sanitising get `_2`, `_3`, ... */
function assignIds(root: AnyStateNode): Map<AnyStateNode, string> {
  const ids = new Map<AnyStateNode, string>();
  // "s_" is the machine itself when it is drawn (a parallel root).
  const taken = new Set<string>(["s_"]);
  for (const node of descendants(root)) {
    const base = mermaidStateId(node.path);
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}_${n}`;
    taken.add(id);
    ids.set(node, id);
  }
  return ids;
}

/** The child states of `parent` with their nested states, initial and final markers, and notes. */
function declareChildren(parent: AnyStateNode, ids: Map<AnyStateNode, string>, lines: string[], depth: number): void {
  const indent = "  ".repeat(depth);
  const children = Object.values(parent.states as Record<string, AnyStateNode>);
  children.forEach((child, index) => {
    // The regions of a parallel state are separated by `--`.
    if (parent.type === "parallel" && index > 0) lines.push(`${indent}--`);
    const id = ids.get(child)!;
    const declaration = `${indent}state "${mermaidLabel(stateName(child))}" as ${id}`;
    if (Object.keys(child.states).length > 0) {
      lines.push(`${declaration} {`);
      declareChildren(child, ids, lines, depth + 1);
      lines.push(`${indent}}`);
    } else {
      lines.push(declaration);
    }
    const view = (child.meta as { view?: unknown } | undefined)?.view;
    if (typeof view === "string") lines.push(`${indent}note right of ${id} : ${mermaidLabel(`view ${view}`)}`);
  });
  if (parent.type === "compound") {
    for (const target of parent.initial?.target ?? []) lines.push(`${indent}[*] --> ${ids.get(target)}`);
  }
  for (const child of children) {
    if (child.type === "final") lines.push(`${indent}${ids.get(child)} --> [*]`);
  }
}

function stateName(node: AnyStateNode): string {
  if (node.type !== "history") return node.key;
  return `${node.key} (${node.history === "deep" ? "deep history" : "history"})`;
}

/** The transitions that leave `node`, as Mermaid edges. */
function edgesOf(node: AnyStateNode, ids: Map<AnyStateNode, string>): string[] {
  const from = ids.get(node)!;
  const edges: string[] = [];
  const draw = (candidates: readonly Candidate[], trigger: string) => {
    candidates.forEach((candidate, index) => {
      const guard = guardLabel(candidate.guard);
      const fallback = guard === undefined && candidates.slice(0, index).some((c) => c.guard !== undefined);
      const label = [trigger, guard !== undefined ? `[${mermaidLabel(guard)}]` : fallback ? "[else]" : ""].filter(Boolean).join(" ");
      const targets: readonly AnyStateNode[] = candidate.target?.length ? candidate.target : [node];
      for (const target of targets) edges.push(`${from} --> ${ids.get(target) ?? from} : ${label}`);
    });
  };
  draw(node.always ?? [], "always");
  const eventTypes = [...node.transitions.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const type of eventTypes) {
    const candidates = node.transitions.get(type)!;
    const choice = switchGuard(candidates);
    // A switch is drawn once, to the state whose children it picks from (a loop when that is `node`), not once per child.
    if (choice !== undefined)
      edges.push(
        `${from} --> ${ids.get(choice.parent) ?? from} : ${triggerLabel(node, type)} [${mermaidLabel(`${choice.type}(${choice.key}=m)`)}] → ${mermaidLabel("its state m")}`,
      );
    else draw(candidates, triggerLabel(node, type));
  }
  return edges;
}

/**
 * The guard of a switch among the children of one state (the `parent`: the state the transition leaves,
 * or another one): two or more candidates of one event, each guarded by the same parameterised guard
 * whose one parameter names the child it leads to (CHOOSE_METHOD with `isChosenMethod(method=totp)` →
 * the child `totp`), each child at most once. Undefined for anything else, which is drawn edge by edge.
 */
function switchGuard(candidates: readonly Candidate[]): { type: string; key: string; parent: AnyStateNode } | undefined {
  if (candidates.length < 2) return undefined;
  let shape: { type: string; key: string; parent: AnyStateNode } | undefined;
  const seen = new Set<AnyStateNode>();
  for (const { guard, target } of candidates) {
    const { type, params } = (guard ?? {}) as { type?: unknown; params?: unknown };
    if (typeof type !== "string" || typeof params !== "object" || params === null) return undefined;
    const entries = Object.entries(params);
    if (entries.length !== 1 || target?.length !== 1) return undefined;
    const [key, value] = entries[0]!;
    const child = target[0]!;
    if (child.parent === undefined || child.key !== value || seen.has(child)) return undefined;
    if (shape !== undefined && (shape.type !== type || shape.key !== key || shape.parent !== child.parent)) return undefined;
    shape = { type, key, parent: child.parent };
    seen.add(child);
  }
  return shape;
}

/** What a transition candidate needs here: its guard and targets (a TransitionDefinition). */
interface Candidate {
  guard?: unknown;
  target?: readonly AnyStateNode[] | undefined;
}

const DONE_ACTOR = "xstate.done.actor.";
const ERROR_ACTOR = "xstate.error.actor.";

/** The event part of a label: the event's name, or what xstate's internal event stands for. */
function triggerLabel(node: AnyStateNode, type: string): string {
  const invoked = (prefix: string, word: string) => {
    const id = type.slice(prefix.length);
    const src = node.invoke.find((definition) => definition.id === id)?.src;
    return `${word}: ${mermaidLabel(typeof src === "string" ? src : id)}`;
  };
  if (type.startsWith(DONE_ACTOR)) return invoked(DONE_ACTOR, "done");
  if (type.startsWith(ERROR_ACTOR)) return invoked(ERROR_ACTOR, "error");
  if (type.startsWith("xstate.done.state.")) return "done";
  const delayed = node.after.find((transition) => transition.eventType === type);
  if (delayed) return mermaidLabel(typeof delayed.delay === "number" ? `after ${delayed.delay}ms` : `after ${String(delayed.delay)}`);
  return type === "*" ? "any event" : mermaidLabel(type);
}
