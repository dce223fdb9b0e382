import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isMap, isPair, isScalar, isSeq } from "yaml";
import type { ConfigSource } from "./config-source.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { KeyPath } from "./key-path.ts";

/**
 * Secrets do not stand in config files: a string value may contain `${env:NAME}` (an environment
 * variable) or `${file:PATH}` (a file's content, PATH relative to the config directory, one trailing
 * newline dropped). References are substituted in the YAML document itself, before schema validation,
 * so the schema checks the real value while every node keeps its line and column.
 *
 * Resolved values are recorded in `source.references` so that no message ever prints them.
 */
const REFERENCE = /\$\{([A-Za-z]+):([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function resolveReferences(source: ConfigSource, configDir: string, env: NodeJS.ProcessEnv): IssueDraft[] {
  const issues: IssueDraft[] = [];
  const visit = (node: unknown, at: KeyPath): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (isPair(pair) && isScalar(pair.key)) visit(pair.value, [...at, String(pair.key.value)]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, [...at, index]));
    } else if (isScalar(node) && typeof node.value === "string" && !node.value.includes("${")) {
      const problem = plainSecretProblem(at, node.value);
      if (problem) issues.push({ file: source.name, at, message: problem });
    } else if (isScalar(node) && typeof node.value === "string") {
      const original = node.value;
      node.value = original.replace(REFERENCE, (reference, kind: string, target: string) => {
        const result = lookup(kind, target, configDir, env);
        if (typeof result === "string") return result;
        issues.push({ file: source.name, at, message: `${result.problem} (in ${reference})` });
        return reference;
      });
      if (node.value !== original) source.references.set(JSON.stringify(at), JSON.stringify(original));
    }
  };
  visit(source.doc?.contents, []);
  return issues;
}

/** Keys whose value is a secret itself: it must come from the environment or a file, never the YAML. */
const SECRET_KEYS = new Set(["signing_key", "private_key_pem", "encryption_key"]);
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]+@/i;

/** Why a plain (unreferenced) value is not allowed where it stands, if it is not. */
function plainSecretProblem(at: KeyPath, value: string): string | undefined {
  const key = at[at.length - 1];
  if (typeof key === "string" && SECRET_KEYS.has(key)) {
    return "is a secret: give it as ${env:NAME} or ${file:PATH}, not in plain text";
  }
  if (key === "url" && URL_WITH_PASSWORD.test(value)) {
    return "holds a password: give the URL as ${env:NAME} or ${file:PATH}, not in plain text";
  }
  return undefined;
}

function lookup(kind: string, target: string, configDir: string, env: NodeJS.ProcessEnv): string | { problem: string } {
  if (kind === "env") {
    if (!ENV_NAME.test(target)) return { problem: `"${target}" is not a valid environment variable name` };
    const value = env[target];
    return value === undefined ? { problem: `environment variable ${target} is not set` } : value;
  }
  if (kind === "file") {
    if (target === "") return { problem: "empty file path" };
    try {
      return readFileSync(resolve(configDir, target), "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
      return { problem: `cannot read file ${target} (${code === "ENOENT" ? "not found" : code})` };
    }
  }
  return { problem: `unknown reference kind "${kind}" (use \${env:NAME} or \${file:PATH})` };
}
