/**
 * The provider runs on Node itself: Node strips the types of the TypeScript sources as it loads them, and
 * no loader (tsx, esbuild) is a dependency or is loaded (docs/performance.md, "Plain Node instead of tsx").
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const PRELOAD = join(import.meta.dirname, "fixtures", "record-loaded-modules.ts");
const LOADERS = ["tsx", "esbuild", "ts-node", "@swc-node/register"];
const dir = mkdtempSync(join(tmpdir(), "portcullis-plain-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("plain Node, no loader", () => {
  it("has no TypeScript loader among its dependencies", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    const dependencies = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
    expect(dependencies.filter((name) => LOADERS.includes(name))).toEqual([]);
  });

  it("loads the CLI's TypeScript sources as they are, without registering a loader or loading one from node_modules", async () => {
    const file = join(dir, "loaded.json");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", pathToFileURL(PRELOAD).href, join(ROOT, "bin", "portcullis.js"), "--help"],
      {
        cwd: ROOT,
        env: { ...process.env, LOADED_MODULES_FILE: file },
      },
    );
    expect(stdout).toMatch(/^usage: portcullis/);
    const { loaded, registered } = JSON.parse(readFileSync(file, "utf8")) as { loaded: string[]; registered: string[] };
    expect(registered).toEqual([]);
    expect(loaded).toContain(pathToFileURL(join(ROOT, "src", "cli", "main.ts")).href);
    expect(loaded.filter((url) => LOADERS.some((name) => url.includes(`/node_modules/${name}/`)))).toEqual([]);
  });
});
