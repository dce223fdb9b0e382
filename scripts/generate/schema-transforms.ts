/**
 * Pure transformations of a JSON Schema used by the generators. They work on copies: the schemas in
 * schemas/ are the single source of truth and are never rewritten.
 */
export type Schema = Record<string, unknown>;

/**
 * Replaces every local `$ref` ("#/definitions/x") by a copy of its target, with the referring
 * schema's own keywords (description, default) layered on top. The generators then see each
 * property complete in one place: a duration keeps its pattern and gets the property's description.
 */
export function inlineDefinitions(schema: Schema): Schema {
  const definitions = (schema.definitions ?? {}) as Record<string, Schema>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== "object") return node;
    const { $ref, ...rest } = node as Schema;
    const merged: Schema = typeof $ref === "string" ? { ...(inline(lookup(definitions, $ref)) as Schema) } : {};
    for (const [key, value] of Object.entries(rest)) merged[key] = key === "default" || key === "enum" ? value : inline(value);
    return merged;
  };
  const { definitions: _unused, ...withoutDefinitions } = inline(schema) as Schema;
  return withoutDefinitions;
}

function lookup(definitions: Record<string, Schema>, ref: string): Schema {
  const match = /^#\/definitions\/([^/]+)$/.exec(ref);
  const target = match ? definitions[match[1]!] : undefined;
  if (!target) throw new Error(`unsupported $ref ${ref}: only #/definitions/<name> is inlined`);
  return target;
}

/**
 * ajv runs with `useDefaults`, so after loading every property that has a `default` is present. Adding
 * those properties to their object's `required` list (in a copy used only for type generation) makes
 * the generated types say so: `provider.listen.port` is `number`, not `number | undefined`.
 */
export function requireDefaulted(schema: Schema): Schema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== "object") return node;
    const copy: Schema = {};
    for (const [key, value] of Object.entries(node as Schema)) copy[key] = key === "default" || key === "enum" ? value : visit(value);
    const properties = copy.properties as Record<string, Schema> | undefined;
    if (properties) {
      const required = new Set((copy.required ?? []) as string[]);
      for (const [name, property] of Object.entries(properties)) if (property.default !== undefined) required.add(name);
      copy.required = [...required];
    }
    return copy;
  };
  return visit(schema) as Schema;
}

/** The sub-schema at a JSON Pointer such as `/properties/clients/items`, or undefined. */
export function schemaAt(schema: Schema, pointer: string): Schema | undefined {
  let node: unknown = schema;
  for (const segment of pointer.split("/").slice(1)) {
    node = node !== null && typeof node === "object" ? (node as Schema)[segment] : undefined;
  }
  return node !== null && typeof node === "object" ? (node as Schema) : undefined;
}
