import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CLIENTS_ANY_LOGIN_TYPE, DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

const demoLogin = readFileSync(join(DEMO_CONFIG_DIR, "login.yaml"), "utf8").replace(/\nlogin_types:[\s\S]*$/, "\n");

async function issues(files: Record<string, string>): Promise<string[]> {
  try {
    await loadInstalledConfig(await tempConfigDir({ "clients.yaml": DEMO_CLIENTS_ANY_LOGIN_TYPE, ...files }));
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => `${issue.file.replace(/^.*\//, "")}:${issue.line ?? "?"} ${issue.message}`);
  }
}

describe("login type rules", () => {
  it("accepts the demo's login types", async () => {
    expect(await issues({})).toEqual([]);
  });

  it("refuses a login type offering an unconfigured method, naming the line", async () => {
    const login = `${demoLogin}login_types:\n  Mfa:\n    flow: second_factor\n    methods: [totp, carrier_pigeon]\n`;
    const found = await issues({ "login.yaml": login });
    expect(found).toEqual([
      expect.stringMatching(
        /^login\.yaml:\d+ method "carrier_pigeon" is not configured under methods \(configured: password, [a-z, ]*totp[a-z, ]*\)$/,
      ),
    ]);
  });

  it("lists the configured methods, so a mistyped key under methods shows beside the method it was meant to be", async () => {
    const login = `${demoLogin.replace(/\n {2}totp:/, "\n  totpp:")}login_types:\n  MfaTotp:\n    flow: second_factor\n    methods: [totp]\n`;
    const found = await issues({ "login.yaml": login });
    expect(found).toEqual([
      expect.stringMatching(/^login\.yaml:\d+ method "totp" is not configured under methods \(configured: .*\btotpp\b.*\)$/),
    ]);
  });

  it("refuses a two-factor or second-factor login type without methods", async () => {
    expect(await issues({ "login.yaml": `${demoLogin}login_types:\n  2FA:\n    flow: two_factor\n` })).toEqual([
      expect.stringMatching(/login type "2FA" offers no method/),
    ]);
  });

  it("refuses two login types that differ only in case", async () => {
    const login = `${demoLogin}login_types:\n  Mfa: { flow: second_factor, methods: [totp] }\n  MFA: { flow: second_factor, methods: [sms] }\n`;
    expect(await issues({ "login.yaml": login })).toEqual([expect.stringMatching(/login type "MFA" differs from "Mfa" only in case/)]);
  });

  it("refuses a client allowed a login type nobody declared", async () => {
    const login = `${demoLogin}login_types:\n  Mfa: { flow: second_factor, methods: [totp] }\n`;
    const clients = DEMO_CLIENTS_ANY_LOGIN_TYPE.replace(/(\n {2}- client_id: demo-web\n)/, "$1    allowed_login_types: [mfa, Teleport]\n");
    expect(await issues({ "login.yaml": login, "clients.yaml": clients })).toEqual([
      expect.stringMatching(/^clients\.yaml:\d+ login type "Teleport" is not declared under login_types in login\.yaml$/),
    ]);
  });
});
