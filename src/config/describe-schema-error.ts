import type { ErrorObject } from "ajv";
import { keyPathFromPointer, type KeyPath } from "./key-path.ts";

/**
 * ajv's messages are written for schema authors ("must NOT have additional properties"). Operators
 * need to know which key, what is allowed, and what they wrote. This turns one ajv error (from a
 * validator compiled with `verbose: true`) into that.
 */
export function describeSchemaError(
  error: ErrorObject,
  /** Keys allowed at the top level besides the schema's own (a factor plugin's settings sit beside the runtime's keys). */
  alsoAllowedAtTop: readonly string[] = [],
): {
  at: KeyPath;
  message: string;
  value?: unknown;
  pointAtKey?: boolean;
} {
  const at = keyPathFromPointer(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const value: unknown = error.data;

  switch (error.keyword) {
    case "additionalProperties": {
      const allowed = [...Object.keys((schema.properties ?? {}) as object), ...(error.instancePath === "" ? alsoAllowedAtTop : [])].join(
        ", ",
      );
      const key = String(params.additionalProperty);
      return { at: [...at, key], message: `unknown key "${key}" (allowed: ${allowed})`, pointAtKey: true };
    }
    case "required":
      return { at: [...at, String(params.missingProperty)], message: `missing required key "${String(params.missingProperty)}"` };
    case "type":
      return { at, message: `must be ${String(params.type).split(",").join(" or ")}`, value };
    case "enum":
      return { at, message: `must be one of: ${(params.allowedValues as unknown[]).map(String).join(", ")}`, value };
    case "pattern":
      return { at, message: patternMessage(String(params.pattern), schema.description), value };
    case "format":
      return { at, message: FORMAT_MESSAGES[String(params.format)] ?? `must be a valid ${String(params.format)}`, value };
    case "minimum":
    case "maximum":
      return { at, message: `must be at ${error.keyword === "minimum" ? "least" : "most"} ${String(params.limit)}`, value };
    case "minLength":
    case "maxLength":
      return { at, message: `must be at ${error.keyword === "minLength" ? "least" : "most"} ${String(params.limit)} characters long` };
    case "minItems":
      return { at, message: `must have at least ${String(params.limit)} item${params.limit === 1 ? "" : "s"}` };
    case "uniqueItems": {
      // ajv reports the pair (i, j) with i > j: point at the later copy, name the earlier one.
      const [later, earlier] = [Number(params.i), Number(params.j)].sort((a, b) => b - a) as [number, number];
      const item = Array.isArray(value) ? (value as unknown[])[later] : undefined;
      return { at: [...at, later], message: `duplicate item (same as item ${earlier})`, value: item };
    }
    default:
      return { at, message: error.message ?? `fails the schema keyword "${error.keyword}"`, value };
  }
}

const FORMAT_MESSAGES: Record<string, string> = {
  uri: "must be an absolute URI (scheme://…)",
  email: "must be an e-mail address",
};

/** A regex alone rarely tells an operator what to write; the schema's description usually does. */
function patternMessage(pattern: string, description: unknown): string {
  if (typeof description !== "string" || description === "") return `must match ${pattern}`;
  const text = description.replace(/\.$/, "");
  // "A duration: …" reads on as "… — a duration: …"; an acronym such as "SHA-256" keeps its case.
  const sentence = /^[A-Z](?![A-Z0-9-])/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
  return `must match ${pattern} — ${sentence}`;
}
