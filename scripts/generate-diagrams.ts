/**
 * `npm run diagrams`: writes docs/diagrams/ — a Mermaid statechart per login flow and factor-method
 * machine (src/diagrams/discover-machines.ts finds them: the default login flow of config/login.yaml,
 * the built-in machines, every plugin folder under flows/methods/) and an index.
 * `npm run diagrams -- --check` writes nothing and exits 1 listing every stale, missing or extra file;
 * test/diagrams/diagrams-fresh.test.ts runs the same check.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DIAGRAM_DOCS_DIR, diagramDocs, type GeneratedFile } from "../src/diagrams/diagram-docs.ts";
import { discoverMachines } from "../src/diagrams/discover-machines.ts";
import { loadTranslations } from "../src/views/load-translations.ts";
import { VIEWS_DIR } from "../src/views/views-dir.ts";

/** Repository root, so the script works from any working directory. */
export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Every file docs/diagrams/ must hold, with its exact content (descriptions: the English UI strings). */
export async function diagramFiles(): Promise<GeneratedFile[]> {
  const strings = loadTranslations(join(VIEWS_DIR, "i18n"));
  return diagramDocs(await discoverMachines(), (key, params) => strings.translate("en", key, params));
}

/**
 * What differs between docs/diagrams/ (under `root`, the repository by default) and what it must
 * hold: `stale: …`, `missing: …`, `extra: …`.
 */
export async function diagramProblems(files?: readonly GeneratedFile[], root = REPO_ROOT): Promise<string[]> {
  const expected = files ?? (await diagramFiles());
  const problems: string[] = [];
  for (const file of expected) {
    const committed = await readFile(join(root, file.path), "utf8").catch(() => undefined);
    if (committed === undefined) problems.push(`missing: ${file.path}`);
    else if (committed !== file.content) problems.push(`stale: ${file.path}`);
  }
  const wanted = new Set(expected.map((file) => file.path));
  for (const path of await committedMarkdown(root)) if (!wanted.has(path)) problems.push(`extra: ${path}`);
  return problems;
}

async function committedMarkdown(root = REPO_ROOT): Promise<string[]> {
  const names = await readdir(join(root, DIAGRAM_DOCS_DIR)).catch(() => [] as string[]);
  return names
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `${DIAGRAM_DOCS_DIR}/${name}`);
}

async function main(): Promise<void> {
  const files = await diagramFiles();
  if (process.argv.includes("--check")) {
    const problems = await diagramProblems(files);
    for (const problem of problems) console.error(problem);
    if (problems.length > 0) {
      console.error(`docs/diagrams/ is out of date (${problems.length} file(s)): run npm run diagrams`);
      process.exitCode = 1;
    } else {
      console.log(`docs/diagrams/ is up to date (${files.length} files)`);
    }
    return;
  }
  await mkdir(join(REPO_ROOT, DIAGRAM_DOCS_DIR), { recursive: true });
  const wanted = new Set(files.map((file) => file.path));
  for (const path of await committedMarkdown()) {
    if (!wanted.has(path)) {
      await rm(join(REPO_ROOT, path));
      console.log(`removed ${path}`);
    }
  }
  for (const file of files) {
    await writeFile(join(REPO_ROOT, file.path), file.content);
    console.log(`wrote ${file.path}`);
  }
}

// Run only as a script (`node scripts/<this file>` sets argv[1] to it); importing it from a test writes nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
