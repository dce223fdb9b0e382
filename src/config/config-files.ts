import { readFileSync } from "node:fs";
import type { ConfigFileName } from "./config-data.ts";
import type { CrossFieldRule } from "./cross-field-rule.ts";
import { applyClientProfiles } from "./fapi2-profile.ts";

/** One file of a configuration directory and the JSON Schema (in schemas/) that defines it. */
export interface ConfigFileEntry {
  readonly name: ConfigFileName;
  readonly file: string;
  readonly schema: string;
  /** A missing file reads as `{}` (the schema's defaults fill it). */
  readonly optional?: boolean;
  /** Runs on the parsed file before the schema fills its defaults: settings a profile implies (clients.yaml's `profile`). */
  readonly beforeSchema?: (value: unknown) => void;
}

/**
 * A plug-in's own file (an extension's manifest declares it): its entry, and the rules that check it
 * against the other files. The composition root hands the installed plug-ins' files to loadConfig; the
 * config layer does not know which plug-ins are installed.
 */
export interface PlugInConfigFile extends ConfigFileEntry {
  readonly rules: readonly CrossFieldRule[];
}

/**
 * The core's files, each with the JSON Schema that defines it. The loader, the schema validator and the
 * generators (types, docs) iterate this table and the plug-ins' files after it, so adding a file is one
 * line here plus its schema.
 */
export const CORE_CONFIG_FILES: readonly ConfigFileEntry[] = [
  { name: "provider", file: "provider.yaml", schema: "provider.schema.json" },
  { name: "clients", file: "clients.yaml", schema: "clients.schema.json", beforeSchema: applyClientProfiles },
  { name: "scopes", file: "scopes.yaml", schema: "scopes.schema.json" },
  { name: "users", file: "users.yaml", schema: "users.schema.json" },
  // Optional: without it the employees are users.yaml's.
  { name: "directory", file: "directory.yaml", schema: "directory.schema.json", optional: true },
  { name: "login", file: "login.yaml", schema: "login.schema.json" },
  // Optional: a provider without channels needs no file.
  { name: "channels", file: "channels.yaml", schema: "channels.schema.json", optional: true },
];

/** One of the core's files by name. */
export function coreConfigFile(name: ConfigFileName): ConfigFileEntry {
  const entry = CORE_CONFIG_FILES.find((file) => file.name === name);
  if (!entry) throw new Error(`${name} is not a core configuration file`);
  return entry;
}

/** schemas/ sits at the repository root; resolving it from this module works from any working directory. */
export const SCHEMAS_DIR = new URL("../../schemas/", import.meta.url);

const schemaCache = new Map<ConfigFileName, Record<string, unknown>>();

/** The parsed JSON Schema of one config file, read once per process. */
export function readSchema(entry: Pick<ConfigFileEntry, "name" | "schema">): Record<string, unknown> {
  let schema = schemaCache.get(entry.name);
  if (!schema) {
    schema = JSON.parse(readFileSync(new URL(entry.schema, SCHEMAS_DIR), "utf8")) as Record<string, unknown>;
    schemaCache.set(entry.name, schema);
  }
  return schema;
}
