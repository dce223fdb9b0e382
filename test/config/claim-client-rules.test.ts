import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/** clients.yaml keys birthdate_format and minimum_acr: their values, and a minimum no login of the client can reach. */
const demoClients = readFileSync(join(DEMO_CONFIG_DIR, "clients.yaml"), "utf8");
/** demo-spa's entry with `lines` added under it. */
const spaWith = (...lines: string[]) =>
  demoClients.replace(/(\n {2}- client_id: demo-spa\n)/, `$1${lines.map((l) => `    ${l}\n`).join("")}`);

async function issues(clients: string): Promise<string[]> {
  try {
    await loadInstalledConfig(await tempConfigDir({ "clients.yaml": clients, "custom-login.yaml": null }));
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => `${issue.file.replace(/^.*\//, "")}:${issue.line ?? "?"} ${issue.message}`);
  }
}

describe("birthdate_format and minimum_acr in clients.yaml", () => {
  it("accepts birthdate_format spec or oidc and minimum_acr 1fa or 2fa on a client that may use the 2FA login type", async () => {
    expect(await issues(spaWith("birthdate_format: oidc", "minimum_acr: 2fa"))).toEqual([]);
    expect(await issues(spaWith("birthdate_format: spec", "minimum_acr: 1fa"))).toEqual([]);
  });

  it("refuses another birthdate format, naming the line", async () => {
    const found = await issues(spaWith("birthdate_format: iso"));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^clients\.yaml:\d+ .*(spec|oidc)/);
  });

  it("refuses a minimum that is no acr claim value (a request value such as must_bfido is not a level)", async () => {
    const found = await issues(spaWith("minimum_acr: must_bfido"));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^clients\.yaml:\d+ .*(1fa|2fa)/);
  });

  it("refuses minimum_acr 2fa for a client whose allowed_login_types hold no two-factor login type", async () => {
    const found = await issues(spaWith("minimum_acr: 2fa", "allowed_login_types: [default, MfaTotp]"));
    expect(found).toEqual([
      expect.stringMatching(/^clients\.yaml:\d+ 2fa needs a login type with flow two_factor that this client may use/),
    ]);
  });

  it("refuses minimum_acr 2fa on a client with the password grant, whose logins are one factor", async () => {
    const legacy = demoClients.replace(/(\n {2}- client_id: demo-legacy\n)/, "$1    minimum_acr: 2fa\n");
    expect(await issues(legacy)).toEqual([expect.stringMatching(/^clients\.yaml:\d+ 2fa cannot hold for the password grant/)]);
  });
});
