import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { diagramFiles, diagramProblems } from "../../scripts/generate-diagrams.ts";

/**
 * docs/diagrams/ must be exactly what `npm run diagrams` writes now: a changed machine, a new plugin
 * folder or a changed default flow in config/login.yaml makes this fail until the docs are regenerated.
 */
describe("docs/diagrams/", () => {
  it("matches the machines (run `npm run diagrams` after changing a flow, a plugin or login.yaml)", async () => {
    expect(await diagramProblems()).toEqual([]);
  });

  it("names each stale, missing and extra file", async () => {
    const files = await diagramFiles();
    const root = mkdtempSync(join(tmpdir(), "portcullis-diagrams-"));
    try {
      for (const file of files) {
        mkdirSync(dirname(join(root, file.path)), { recursive: true });
        writeFileSync(join(root, file.path), file.content);
      }
      expect(await diagramProblems(files, root)).toEqual([]);
      writeFileSync(join(root, "docs/diagrams/method-password.md"), "an old drawing\n");
      rmSync(join(root, "docs/diagrams/identify-user.md"));
      writeFileSync(join(root, "docs/diagrams/method-gone.md"), "a removed plugin\n");
      expect(await diagramProblems(files, root)).toEqual([
        "missing: docs/diagrams/identify-user.md",
        "stale: docs/diagrams/method-password.md",
        "extra: docs/diagrams/method-gone.md",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("is generated deterministically, with an index and one page per machine", async () => {
    const files = await diagramFiles();
    expect(await diagramFiles()).toEqual(files);
    expect(files[0]!.path).toBe("docs/diagrams/README.md");
    expect(files.map((f) => f.path)).toContain("docs/diagrams/login.md");
    const password = files.find((f) => f.path === "docs/diagrams/method-password.md")!.content;
    expect(password).toMatch(/^# method-password\n\nSign-in method password: challenge and verification\.\n/);
    expect(password).toContain("```mermaid\nstateDiagram-v2\n");
    expect(password).toContain("  s_awaitingCredentials --> s_verifying : SUBMIT_PASSWORD [hasCredentials]\n");
  });
});
