import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { loadMethodPlugins } from "../../src/runtime/method-plugins.ts";
import { copyConfig } from "../support/test-provider.ts";

/** A copy of the pin test plugin whose manifest claims routes outside `/methods/pin`. */
const pluginDir = mkdtempSync(join(tmpdir(), "portcullis-prefix-plugin-"));
mkdirSync(pluginDir, { recursive: true });
writeFileSync(
  join(pluginDir, "index.ts"),
  `import pin from "${join(import.meta.dirname, "../plugins/pin/index.ts")}";\n` +
    `export default { ...pin, manifest: { ...pin.manifest, routePrefix: "/connect" } };\n`,
);
const configDir = copyConfig({ "login.yaml": { "methods.pin": { from: pluginDir } } });
afterAll(() => {
  rmSync(pluginDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

describe("a factor method's manifest", () => {
  it("may not claim routes outside /methods/<id>: the provider does not start, and says where", async () => {
    const config = await loadInstalledConfig(configDir, {});
    const error = await loadMethodPlugins(config.login, config.dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    const messages = (error as ConfigError).issues.map((issue) => issue.message);
    expect(messages).toEqual([`the plugin in ${pluginDir} must serve its routes under /methods/pin, not /connect`]);
  });
});
