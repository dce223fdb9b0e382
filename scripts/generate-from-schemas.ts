/**
 * `npm run generate`: writes the files derived from schemas/*.schema.json, which are the only place a
 * config key, its type, default and description are defined:
 *   - src/config/types/<file>.generated.ts (TypeScript types of each loaded config file) and
 *     src/config/types.generated.ts, which re-exports them
 *   - docs/configuration.md (the configuration reference, with each shipped factor plugin's settings)
 * test/config/generated-files.test.ts calls `generatedFiles()` and fails when a committed copy is stale.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateDocs } from "./generate/generate-docs.ts";
import { generateTypeFiles } from "./generate/generate-types.ts";

/** Repository root, so the script works from any working directory. */
export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Every generated file: path relative to the repository root, and its exact content. */
export async function generatedFiles(): Promise<{ path: string; content: string }[]> {
  return [...(await generateTypeFiles()), { path: "docs/configuration.md", content: await generateDocs() }];
}

async function main(): Promise<void> {
  for (const file of await generatedFiles()) {
    const target = new URL(file.path, pathToFileURL(REPO_ROOT));
    await mkdir(dirname(fileURLToPath(target)), { recursive: true });
    await writeFile(target, file.content);
    console.log(`wrote ${file.path}`);
  }
}

// Run only as a script (`node scripts/<this file>` sets argv[1] to it); importing it from a test writes nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
