import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { coreConfigFile, readSchema } from "../../config/config-files.ts";

/**
 * provider.yaml's data_dir (else the schema's default), read from the file as written: `reload` and
 * `check-config --diff` need it even when another file of the configuration does not validate.
 */
export function dataDirOf(configDir: string): string {
  let value: unknown;
  try {
    value = (parse(readFileSync(join(configDir, "provider.yaml"), "utf8")) as { data_dir?: unknown } | null)?.data_dir;
  } catch {
    value = undefined;
  }
  if (typeof value === "string" && value !== "") return value;
  const properties = readSchema(coreConfigFile("provider")).properties as Record<string, { default?: string }>;
  return properties.data_dir!.default!;
}
