import { readFileSync } from "node:fs";
import { EXTENSION_CONFIG_FILES } from "../extensions/manifests/installed-manifests.ts";

/**
 * The files of a configuration directory, each with the JSON Schema that defines it. The loader,
 * the schema validator and the generators (types, docs) all iterate this one table, so adding a file
 * is one line here plus its schema.
 */
export const CONFIG_FILES = [
  { name: "provider", file: "provider.yaml", schema: "provider.schema.json" },
  { name: "clients", file: "clients.yaml", schema: "clients.schema.json" },
  { name: "scopes", file: "scopes.yaml", schema: "scopes.schema.json" },
  { name: "users", file: "users.yaml", schema: "users.schema.json" },
  { name: "login", file: "login.yaml", schema: "login.schema.json" },
  // Optional: a provider without channels needs no file (read as `{}`, the schema's defaults fill it).
  { name: "channels", file: "channels.yaml", schema: "channels.schema.json", optional: true },
  // Each extension's own file (src/extensions/manifests/), optional like channels.yaml.
  ...EXTENSION_CONFIG_FILES,
] as const;

export type ConfigFileName = (typeof CONFIG_FILES)[number]["name"];

/** schemas/ sits at the repository root; resolving it from this module works from any working directory. */
export const SCHEMAS_DIR = new URL("../../schemas/", import.meta.url);

const schemaCache = new Map<ConfigFileName, Record<string, unknown>>();

/** The parsed JSON Schema of one config file, read once per process. */
export function readSchema(name: ConfigFileName): Record<string, unknown> {
  let schema = schemaCache.get(name);
  if (!schema) {
    const entry = CONFIG_FILES.find((f) => f.name === name)!;
    schema = JSON.parse(readFileSync(new URL(entry.schema, SCHEMAS_DIR), "utf8")) as Record<string, unknown>;
    schemaCache.set(name, schema);
  }
  return schema;
}
