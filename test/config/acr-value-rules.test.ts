import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/**
 * The demo's login.yaml with its acr_values section replaced by `declared` (YAML lines under `acr_values:`),
 * and without its eID upstream's acr mapping (which names the demo's 2fa).
 */
const DEMO_LOGIN = readFileSync(join(DEMO_CONFIG_DIR, "login.yaml"), "utf8");
const withAcrValues = (declared: string) =>
  DEMO_LOGIN.replace(/\nacr_values:\n(?: {2}.*\n|\n)*/, `\nacr_values:\n${declared}\n`).replace(/\n {4}acr:\n(?: {6}.*\n)+/, "\n");

async function issues(login: string): Promise<string[]> {
  try {
    await loadInstalledConfig(await tempConfigDir({ "login.yaml": login }));
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => issue.message);
  }
}

describe("acr_values declarations (login.yaml)", () => {
  it("the demo declares the spec's table (eight rows: six values, two of them with an argument), and they load", async () => {
    const config = await loadInstalledConfig(DEMO_CONFIG_DIR);
    expect(Object.keys(config.login.acr_values ?? {})).toEqual(["2fa", "must_bfido", "req_chnl", "chnl_info", "app_gps", "app_faceid"]);
    expect(withAcrValues("  gold: { login_type: 2FA }")).not.toBe(DEMO_LOGIN);
  });

  it.each([
    ["  gold: { login_type: Platinum }", 'login type "Platinum" is not declared under login_types'],
    ["  gold: { login_type: 2fa, alone: true }", 'acr value "gold" cannot both select a login type and stand alone'],
    ["  gold: { argument: methods }", "argument: methods chooses a login type's methods: add login_type"],
    ["  gold: { argument: channel }", "argument: channel names the channel of the channel check: add channel: true"],
    ["  gold: { methods: [carrier_pigeon] }", 'method "carrier_pigeon" is not configured under methods'],
    ["  gold: { claims: [chnl_name] }", "chnl, chnl_name and chnl_icon come from the channel check: add channel: true"],
    ["  gold: { channel: true, claims: [chnl_name] }", "the channel check answers with the chnl claim: list chnl under claims"],
    ["  gold: { claims: [gps] }", "gps come from the trusted app's signed assertion: methods must name only qrcode"],
    [
      "  gold: { methods: [qrcode, password], claims: [gps, faceid] }",
      "gps and faceid come from the trusted app's signed assertion: methods must name only qrcode",
    ],
    ["  gold: { login_type: 2FA }\n  GOLD: { login_type: 2FA }", 'acr value "GOLD" differs from "gold" only in case'],
  ])("refuses %j", async (declared, message) => {
    expect(await issues(withAcrValues(declared))).toEqual([message]);
  });

  it("refuses an unknown key or claim at the schema", async () => {
    expect((await issues(withAcrValues("  gold: { claims: [salary] }"))).join("\n")).toMatch(
      /must be one of: chnl, chnl_name, chnl_icon, gps, faceid/,
    );
    expect((await issues(withAcrValues("  gold: { login_typ: 2FA }"))).join("\n")).toMatch(/login_typ/);
  });

  it("accepts a new value declared with YAML alone, and a login type named default is refused as reserved", async () => {
    expect(await issues(withAcrValues("  gold: { description: Both factors., login_type: 2FA }"))).toEqual([]);
    expect(await issues(DEMO_LOGIN.replace("\n  eID:\n", "\n  Default: { flow: second_factor, methods: [totp] }\n  eID:\n"))).toEqual([
      '"Default" is reserved: a client\'s allowed_login_types names the login without a login type by it',
    ]);
  });
});
