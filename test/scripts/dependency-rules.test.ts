import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseOptions, type ICruiseResult, type IConfiguration } from "dependency-cruiser";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The layer rules of `npm run deps` (.dependency-cruiser.cjs) catch what they are written for: each case
 * plants one import in a throw-away tree laid out like the repository and expects exactly the named rules
 * to fire — and the imports the layering allows to pass.
 */
const rules = createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as {
  forbidden: NonNullable<IConfiguration["forbidden"]>;
  options: Record<string, unknown>;
};

const trees: string[] = [];
afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

/** The rule names the import `from` → `to` violates (every file of the tree exists and exports something). */
async function violations(from: string, to: string, extra: Record<string, string> = {}): Promise<string[]> {
  const tree = mkdtempSync(join(tmpdir(), "portcullis-deps-"));
  trees.push(tree);
  const files: Record<string, string> = {
    [from]: `import { x } from "${relative(from, to)}";\nexport const y = x;\n`,
    [to]: "export const x = 1;\n",
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(tree, dirname(path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  mkdirSync(join(tree, "flows"), { recursive: true });
  const options = { ...rules.options, baseDir: tree, validate: true, ruleSet: { forbidden: rules.forbidden } } as ICruiseOptions;
  const result = (await cruise(["src", "flows"], options)).output as ICruiseResult;
  return [...new Set(result.summary.violations.map((violation) => violation.rule.name))].sort();
}

function relative(from: string, to: string): string {
  const up = dirname(from)
    .split("/")
    .map(() => "..");
  return [...up, to].join("/");
}

describe("the layer rules of npm run deps", () => {
  it.each([
    [
      "the ground floor imports nothing of ours",
      "src/time/clock.ts",
      "src/config/load.ts",
      ["floor-ground-imports-nothing-above", "leaf-folders-import-nothing-of-ours"],
    ],
    [
      "the store imports no other folder (not the extension list)",
      "src/stores/store.ts",
      "src/extensions/installed-extensions.ts",
      [
        "floor-foundation-imports-nothing-above",
        "leaf-folders-import-nothing-of-ours",
        "nothing-imports-the-installed-extension-list-below-the-composition",
      ],
    ],
    [
      "the config loader does not import the extension list",
      "src/config/config-files.ts",
      "src/extensions/installed-extensions.ts",
      ["floor-foundation-imports-nothing-above", "nothing-imports-the-installed-extension-list-below-the-composition"],
    ],
    [
      "a model does not import the login runtime",
      "src/tokens/id-token.ts",
      "src/runtime/interactions.ts",
      ["floor-records-imports-nothing-above"],
    ],
    ["the login plan imports no store", "src/login-policy/plan.ts", "src/stores/store.ts", ["login-policy-is-pure"]],
    ["the runtime does not import the HTTP layer", "src/runtime/flow.ts", "src/http/create-app.ts", ["floor-login-imports-nothing-above"]],
    [
      "the infrastructure's type does not import the HTTP layer",
      "src/infra/infra.ts",
      "src/http/create-app.ts",
      ["floor-infra-imports-nothing-above"],
    ],
    ["the HTTP layer does not import the reload", "src/http/endpoint.ts", "src/reload/reload.ts", ["floor-http-imports-nothing-above"]],
    [
      "only the composition imports the provider",
      "src/http/endpoint.ts",
      "src/provider.ts",
      ["floor-http-imports-nothing-above", "only-the-composition-imports-the-provider"],
    ],
    [
      "a factor method imports the plugin contract only",
      "flows/methods/pin/index.ts",
      "src/time/duration.ts",
      ["flows-import-only-the-plugin-contract"],
    ],
    [
      "an extension imports the plugin contract only",
      "src/extensions/demo/routes.ts",
      "src/http-kit/params.ts",
      ["extensions-import-only-the-plugin-contract"],
    ],
    [
      "an extension does not reach into another extension",
      "src/extensions/demo/routes.ts",
      "src/extensions/other/secret.ts",
      ["extensions-import-only-the-plugin-contract"],
    ],
  ])("%s", async (_name, from, to, expected) => {
    expect(await violations(from, to)).toEqual(expected);
  });

  it.each([
    ["the HTTP layer imports the runtime", "src/http/endpoint.ts", "src/runtime/flow.ts"],
    ["the CLI imports the provider", "src/cli/commands/start.ts", "src/provider.ts"],
    ["the process start imports the provider", "src/start-provider.ts", "src/provider.ts"],
    ["a factor method imports the plugin contract", "flows/methods/pin/index.ts", "src/plugin-contract/index.ts"],
    ["a machine definition imports the contract's light part", "flows/login.flow.ts", "src/plugin-contract/declaration.ts"],
    ["an extension imports its own files", "src/extensions/demo/routes.ts", "src/extensions/demo/settings.ts"],
    ["the composition imports the extension list", "src/provider.ts", "src/extensions/installed-extensions.ts"],
  ])("lets %s", async (_name, from, to) => {
    expect(await violations(from, to)).toEqual([]);
  });

  it("finds an import cycle", async () => {
    expect(
      await violations("src/time/a.ts", "src/time/b.ts", { "src/time/b.ts": 'import { y } from "./a.ts";\nexport const x = y;\n' }),
    ).toEqual(["no-circular"]);
  });
});
