import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.ts";
import { ConfigError } from "../../src/errors/config-error.ts";
import { INSTALLED_CONFIG_FILES, loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/** A custom-login.yaml its rules refuse (a client clients.yaml does not have). */
const BROKEN_CUSTOM_LOGIN = { "custom-login.yaml": "clients:\n  - client_id: nobody\n" };

describe("a plug-in's config file comes from its manifest, handed over by the composition root", () => {
  it("is neither read nor checked by the config layer on its own", async () => {
    const config = await loadConfig(await tempConfigDir(BROKEN_CUSTOM_LOGIN), {});
    expect(config.custom_login).toBeUndefined();
    expect(config.plugInFiles).toEqual([]);
  });

  it("is read, validated and checked by its own rules once handed over, and remembered for a reload", async () => {
    const dir = await tempConfigDir(BROKEN_CUSTOM_LOGIN);
    const error = await loadInstalledConfig(dir, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.message)).toContain("is not a client of clients.yaml");
    const demo = await loadInstalledConfig(await tempConfigDir(), {});
    expect(demo.custom_login.clients.length).toBeGreaterThan(0);
    expect(demo.plugInFiles).toBe(INSTALLED_CONFIG_FILES);
  });
});
