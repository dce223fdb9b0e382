import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedFiles, REPO_ROOT } from "../../scripts/generate-from-schemas.ts";

describe("files generated from schemas/", () => {
  it("are up to date (run `npm run generate` after changing a schema)", async () => {
    for (const file of await generatedFiles()) {
      const committed = await readFile(join(REPO_ROOT, file.path), "utf8").catch(() => "(missing)");
      expect(committed, `${file.path} is stale: run npm run generate`).toBe(file.content);
    }
  });

  it("are generated deterministically", async () => {
    const [first, second] = [await generatedFiles(), await generatedFiles()];
    expect(second).toEqual(first);
  });
});
