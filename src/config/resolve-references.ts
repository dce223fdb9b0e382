import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isAlias, isMap, isPair, isScalar, isSeq } from "yaml";
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
    } else if (isAlias(node)) {
      // An alias would carry a value from elsewhere past the checks below.
      if (isSecretPosition(at))
        issues.push({ file: source.name, at, message: "must not be a YAML alias: give the value itself as a reference" });
    } else if (isScalar(node) && typeof node.value === "string" && !node.value.includes("${")) {
      const problem = plainSecretProblem(at, node.value);
      if (problem) issues.push({ file: source.name, at, message: problem });
    } else if (isScalar(node) && typeof node.value === "string") {
      const original = node.value;
      const problem = referenceFormProblem(at, original, node.anchor);
      if (problem) {
        issues.push({ file: source.name, at, message: problem });
        return;
      }
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
const SECRET_KEYS = new Set(["signing_key", "private_key_pem", "encryption_key", "client_secret", "bind_password"]);
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]+@/i;

const WHOLE_REFERENCE = /^\$\{(env|file):[^}]*\}$/;

/** The key a value stands under (undefined for a list item). */
function keyOf(at: KeyPath): string | undefined {
  const key = at[at.length - 1];
  return typeof key === "string" ? key : undefined;
}

const isSecretKey = (at: KeyPath) => SECRET_KEYS.has(keyOf(at) ?? "");
const isSecretPosition = (at: KeyPath) => isSecretKey(at) || keyOf(at) === "url";

/**
 * Why a value containing `${` is not acceptable as written: a `${` that is no reference (it would
 * otherwise pass as plain text), a secret that is not exactly one reference, or an anchor on a value
 * with a reference (an alias elsewhere would copy the resolved secret where messages may echo it).
 */
function referenceFormProblem(at: KeyPath, value: string, anchor: string | undefined): string | undefined {
  if (value.replace(REFERENCE, "").includes("${")) return "contains '${' that is not a ${env:NAME} or ${file:PATH} reference";
  if (isSecretKey(at) && !WHOLE_REFERENCE.test(value)) {
    return "is a secret: give it as exactly one ${env:NAME} or ${file:PATH}, with nothing around it";
  }
  if (anchor !== undefined) return `a value with a reference must not carry an anchor (&${anchor})`;
  return undefined;
}

/** Why a plain (unreferenced) value is not allowed where it stands, if it is not. */
function plainSecretProblem(at: KeyPath, value: string): string | undefined {
  if (isSecretKey(at)) return "is a secret: give it as ${env:NAME} or ${file:PATH}, not in plain text";
  if (keyOf(at) === "url" && URL_WITH_PASSWORD.test(value)) {
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
