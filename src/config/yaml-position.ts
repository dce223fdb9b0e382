import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from "yaml";
import type { KeyPath } from "./key-path.ts";

export interface Position {
  line: number;
  column: number;
}

/**
 * Line and column (1-based) of the node at `segments` in a parsed document. `target: "key"` points at
 * the map key itself (for "unknown key" messages) instead of its value. When the path does not exist
 * in the document — a missing required key, a value filled in by a schema default — the deepest
 * existing ancestor is used, so the operator still lands on the right map.
 */
export function yamlPosition(doc: Document, lineCounter: LineCounter, segments: KeyPath, target: "key" | "value" = "value"): Position {
  let node: unknown = doc.contents;
  let found: unknown = node;
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    node = resolveAlias(doc, node);
    const next = child(node, segment);
    if (!next) break;
    // A key's own node, or the value when there is one; `key:` with nothing after it has no value node.
    found = last && target === "key" ? next.key : (next.value ?? next.key);
    node = next.value;
  }
  return toPosition(lineCounter, found);
}

function resolveAlias(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

/** The key/value nodes of one map entry or sequence item, or undefined when absent. */
function child(node: unknown, segment: string | number): { key: unknown; value: unknown } | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => isPair(p) && String(isScalar(p.key) ? p.key.value : p.key) === String(segment));
    return pair ? { key: pair.key, value: pair.value } : undefined;
  }
  if (isSeq(node) && typeof segment === "number") {
    const item = node.items[segment];
    return item === undefined ? undefined : { key: item, value: item };
  }
  return undefined;
}

function toPosition(lineCounter: LineCounter, node: unknown): Position {
  const range = (node as Node | null | undefined)?.range;
  if (!range) return { line: 1, column: 1 };
  const { line, col } = lineCounter.linePos(range[0]);
  return { line, column: col };
}
