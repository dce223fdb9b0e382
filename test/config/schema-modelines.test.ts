import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { INSTALLED_CONFIG_ENTRIES, loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/** The modeline yaml-language-server (VS Code, Neovim, Helix, Zed, ...) and JetBrains IDEs read. */
const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/;
const SHIPPED = readdirSync(DEMO_CONFIG_DIR).filter((name) => name.endsWith(".yaml"));

describe("editor schema modelines of the shipped configuration", () => {
  it("ships every configuration file the loader reads", () => {
    expect(SHIPPED.sort()).toEqual(INSTALLED_CONFIG_ENTRIES.map((entry) => entry.file).sort());
  });

  it.each(SHIPPED)("%s names its own schema on its first line", (name) => {
    const file = join(DEMO_CONFIG_DIR, name);
    const firstLine = readFileSync(file, "utf8").split("\n", 1)[0]!;
    const match = MODELINE.exec(firstLine);
    expect(match, firstLine).not.toBeNull();
    const schemaPath = resolve(dirname(file), match![1]!);
    const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as { $id: string; title: string; description: string };
    // The right schema: the one the loader validates this file with, which says so in its description.
    expect(basename(schemaPath)).toBe(name.replace(/\.yaml$/, ".schema.json"));
    expect(schema.$id).toBe(basename(schemaPath));
    expect(schema.title).toMatch(/^[A-Z][A-Za-z]+File$/);
    expect(schema.description.startsWith(`config/${name}: `)).toBe(true);
  });

  // The demo's development eID provider is a second configuration directory, shipped the same way.
  const UPSTREAM_DIR = join(DEMO_CONFIG_DIR, "dev-eid-upstream");
  it.each(readdirSync(UPSTREAM_DIR).filter((name) => name.endsWith(".yaml")))(
    "dev-eid-upstream/%s names its own schema on its first line",
    (name) => {
      const file = join(UPSTREAM_DIR, name);
      const match = MODELINE.exec(readFileSync(file, "utf8").split("\n", 1)[0]!);
      expect(match, file).not.toBeNull();
      expect(resolve(dirname(file), match![1]!)).toBe(resolve(DEMO_CONFIG_DIR, "../schemas", name.replace(/\.yaml$/, ".schema.json")));
    },
  );

  it.each(SHIPPED)("every property of the schema of %s has a description for completion", (name) => {
    const schema = JSON.parse(
      readFileSync(resolve(DEMO_CONFIG_DIR, "../schemas", name.replace(/\.yaml$/, ".schema.json")), "utf8"),
    ) as object;
    expect(undescribedProperties(schema, name)).toEqual([]);
  });

  it("reports errors at the file's own line numbers, the modeline counted", async () => {
    const dir = await tempConfigDir({
      "provider.yaml":
        "# yaml-language-server: $schema=../schemas/provider.schema.json\nissuer: http://localhost:3000\nlifetimes:\n  refresh_token: 0s\n",
    });
    const error = await loadInstalledConfig(dir, {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message.split("\n")).toEqual([expect.stringMatching(/provider\.yaml:4:18 lifetimes\.refresh_token: /)]);
  });
});

/** Paths of properties without a description (a $ref'd property takes the description of its target). */
function undescribedProperties(node: unknown, path: string): string[] {
  if (node === null || typeof node !== "object") return [];
  const found: string[] = [];
  const record = node as Record<string, unknown>;
  for (const [name, property] of Object.entries((record.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    if (typeof property.description !== "string" || property.description === "") found.push(`${path}.${name}`);
  }
  for (const [key, child] of Object.entries(record)) {
    if (key === "properties")
      for (const [name, property] of Object.entries(child as object)) found.push(...undescribedProperties(property, `${path}.${name}`));
    else if (typeof child === "object") found.push(...undescribedProperties(child, `${path}/${key}`));
  }
  return found;
}
