import type { Schema } from "./schema-transforms.ts";

/** Human names of a property's type for the docs: `string (uri)`, `list of string`, `map`. */
export function describeSchemaType(schema: Schema): string {
  const type = schema.type;
  if (type === "array") {
    const items = (schema.items ?? {}) as Schema;
    return items.type === "object" ? "list of maps (table below)" : `list of ${describeSchemaType(items)}`;
  }
  if (type === "object") return schema.properties ? "map (table below)" : "map";
  const name = Array.isArray(type) ? type.join(" or ") : String(type ?? "any");
  return typeof schema.format === "string" ? `${name} (${schema.format})` : name;
}

/** Every constraint a value must meet, in words: allowed values, patterns, ranges, lengths. */
export function describeSchemaConstraints(schema: Schema): string {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => `\`${String(v)}\``).join(", ")}`);
  if (typeof schema.pattern === "string") parts.push(`pattern \`${schema.pattern}\``);
  const range = bounds(schema.minimum, schema.maximum, "");
  if (range) parts.push(range);
  const length = bounds(schema.minLength, schema.maxLength, "character");
  if (length) parts.push(length);
  const count = bounds(schema.minItems, schema.maxItems, "item");
  if (count) parts.push(count);
  if (schema.uniqueItems === true) parts.push("no duplicates");
  const items = schema.items as Schema | undefined;
  if (items && items.type !== "object") {
    const each = describeSchemaConstraints(items);
    if (each) parts.push(`each ${each}`);
  }
  return parts.join("; ");
}

/** `0 to 65535`, `at least 1 item`, `at most 2000 characters`; `noun` is singular, "" for plain numbers. */
function bounds(min: unknown, max: unknown, noun: string): string | undefined {
  const unit = (n: number) => (noun === "" ? "" : ` ${noun}${n === 1 ? "" : "s"}`);
  if (typeof min === "number" && typeof max === "number") return `${min} to ${max}${unit(max)}`;
  if (typeof min === "number") return `at least ${min}${unit(min)}`;
  if (typeof max === "number") return `at most ${max}${unit(max)}`;
  return undefined;
}
