import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { configIssues, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

const yaml = (...lines: string[]) => `${lines.join("\n")}\n`;
const customLogin = (...lines: string[]) => ({ "custom-login.yaml": yaml(...lines) });

describe("custom-login.yaml rules (against clients.yaml)", () => {
  it("accepts the demo's file and one without clients", async () => {
    await expect(loadInstalledConfig(await tempConfigDir(), {})).resolves.toBeDefined();
    await expect(loadInstalledConfig(await tempConfigDir(customLogin("clients: []")), {})).resolves.toBeDefined();
  });

  it("rejects a client that clients.yaml does not have", async () => {
    expect(await configIssues(customLogin("clients:", "  - client_id: demo-web", "  - client_id: nobody"))).toEqual([
      'custom-login.yaml:3:16 clients[1].client_id: is not a client of clients.yaml (got "nobody")',
    ]);
  });

  it("rejects a client listed twice", async () => {
    expect(
      await configIssues(customLogin("clients:", "  - client_id: demo-web", "  - client_id: demo-channel", "  - client_id: demo-web")),
    ).toEqual(['custom-login.yaml:4:16 clients[2].client_id: "demo-web" is listed already (clients[0])']);
  });

  it("rejects a client without the authorization_code grant and the custom-scan scope", async () => {
    expect(await configIssues(customLogin("clients:", "  - client_id: demo-service"))).toEqual([
      'custom-login.yaml:2:16 clients[0].client_id: needs the authorization_code grant (clients.yaml) (got "demo-service")',
      'custom-login.yaml:2:16 clients[0].client_id: needs the scope acme.ext.custom_scan in its allowed_scopes (clients.yaml) (got "demo-service")',
    ]);
  });

  it("rejects a code-flow client without acme.ext.custom_scan", async () => {
    expect(await configIssues(customLogin("clients:", "  - client_id: demo-portal"))).toEqual([
      'custom-login.yaml:2:16 clients[0].client_id: needs the scope acme.ext.custom_scan in its allowed_scopes (clients.yaml) (got "demo-portal")',
    ]);
  });

  it("rejects own_scopes the client is not allowed", async () => {
    expect(
      await configIssues(customLogin("clients:", "  - client_id: demo-channel", "    own_scopes: [channel.login.scan, channel.directory]")),
    ).toEqual(['custom-login.yaml:3:38 clients[0].own_scopes[1]: is not among demo-channel\'s allowed_scopes (got "channel.directory")']);
  });

  it("rejects a duration that is not one, and a data limit out of range, at their lines", async () => {
    const duration =
      "must match ^[1-9][0-9]*(s|m|h|d)$ — a duration: a positive whole number followed by s, m, h or d (e.g. 300s, 5m, 8h, 30d)";
    expect(
      await configIssues(
        customLogin("clients:", "  - client_id: demo-web", "qr_lifetime: 2 minutes", "operation_lifetime: 0m", "max_data_length: 0"),
      ),
    ).toEqual([
      `custom-login.yaml:3:14 qr_lifetime: ${duration} (got "2 minutes")`,
      `custom-login.yaml:4:21 operation_lifetime: ${duration} (got "0m")`,
      "custom-login.yaml:5:18 max_data_length: must be at least 1 (got 0)",
    ]);
  });
});
