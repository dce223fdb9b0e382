/**
 * Text that is safe inside a Mermaid `stateDiagram-v2`. Mermaid 12 decodes no entity codes (`#58;`)
 * in state diagrams, and some characters end or change a statement there (`;` ends it, `:` starts a
 * description, `"` ends a quoted name, `::` is class syntax, `%%` a comment, `<…>` is HTML that its
 * sanitiser drops). So instead of escaping, every character outside a small safe set is replaced:
 * machine definitions use names (camelCase states, MACRO_CASE events, isX guards), so in practice
 * nothing is lost, and a hostile name can neither break the diagram nor put markup into the page.
 */

// Letters and digits of any script, space, and punctuation that means nothing to the state diagram parser.
const SAFE_CHAR = /[\p{L}\p{N} _.,=()[\]{}+*/!?@$'-]/u;

/** A label (state name, transition text, note): unsafe characters become `_`, whitespace runs one space. */
export function mermaidLabel(text: string): string {
  let out = "";
  for (const char of text.replace(/\s+/g, " ").trim()) out += SAFE_CHAR.test(char) ? char : "_";
  return out === "" ? "_" : out;
}

/**
 * A state id: Mermaid ids are `[A-Za-z0-9_]` (no dots, colons or dashes), and words such as `end`,
 * `state` or `note` are keywords, so every id is `s_` plus the state's path, segments joined by `__`,
 * other characters as `_`. Ids stay stable when states are added elsewhere (diffs stay small).
 */
export function mermaidStateId(path: readonly string[]): string {
  return `s_${path.map((segment) => segment.replace(/[^A-Za-z0-9]/g, "_")).join("__")}`;
}
