import type { ConfigIssue } from "../errors/config-error.ts";
import type { ConfigSource } from "./config-source.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { keyPath, type KeyPath } from "./key-path.ts";
import { yamlPosition } from "./yaml-position.ts";

/** Key names whose values are secrets or key material: their values are never echoed (a plugin's pepper, metrics.token too). */
const SECRET_KEY = /secret|password|key|pem|pepper|^token$/i;

/**
 * Turns a check's draft into what the operator sees: display file name, line and column of the YAML
 * node, readable key path, and the value only when showing it cannot leak anything.
 */
export function buildConfigIssue(source: ConfigSource, draft: IssueDraft): ConfigIssue {
  const issue: ConfigIssue = { file: source.displayPath, path: keyPath(draft.at), message: draft.message };
  const position =
    draft.position ?? (source.doc ? yamlPosition(source.doc, source.lineCounter, draft.at, draft.pointAtKey ? "key" : "value") : "none");
  if (position !== "none") {
    issue.line = position.line;
    issue.column = position.column;
  }
  if (draft.value === undefined) return issue;
  const reference = source.references.get(JSON.stringify(draft.at));
  if (reference !== undefined) {
    // The value came from the environment or a file: name the reference, never its content.
    issue.message += ` (value of ${reference} not shown)`;
  } else if (isContainer(draft.value) || !looksSecret(draft.at)) {
    // Lists and maps are only ever shown as "a list" / "a map", so they cannot leak.
    issue.value = draft.value;
  }
  return issue;
}

const isContainer = (value: unknown) => value !== null && typeof value === "object";

/** The nearest named segment decides: `users[0].password_hash` is secret, `allowed_scopes[2]` is not. */
function looksSecret(at: KeyPath): boolean {
  const name = [...at].reverse().find((segment) => typeof segment === "string");
  return name !== undefined && SECRET_KEY.test(name);
}
