import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CLIENTS_ANY_LOGIN_TYPE, DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/** The demo's login.yaml up to its login types (the eID declarations are the tests' own). */
const methodsOnly = readFileSync(join(DEMO_CONFIG_DIR, "login.yaml"), "utf8").replace(/\nlogin_types:[\s\S]*$/, "\n");
/** Lines of the demo's part above the tests' own: issues are reported as `+n`, n lines below it, so a comment added there moves nothing here. */
const DEMO_LINES = methodsOnly.split("\n").length - 1;

const upstream = (id: string, lines: string[]) => [`  ${id}:`, ...lines.map((line) => `    ${line}`)].join("\n");
const NATIONAL = ["issuer: https://eid.example.gov", "client_id: portcullis", "client_secret: ${env:EID_SECRET}"];

function loginYaml(types: string, upstreams: string): string {
  return `${methodsOnly}login_types:\n${types}\neid_upstreams:\n${upstreams}\n`;
}

async function load(login: string, env: NodeJS.ProcessEnv = { EID_SECRET: "s3cret-from-env" }) {
  return loadInstalledConfig(await tempConfigDir({ "login.yaml": login, "clients.yaml": DEMO_CLIENTS_ANY_LOGIN_TYPE }), env);
}

async function issues(login: string): Promise<string[]> {
  try {
    await load(login);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map(
      (issue) =>
        `${issue.file.replace(/^.*\//, "")}:${issue.line === undefined ? "?" : `+${issue.line - DEMO_LINES}`} ${issue.path}: ${issue.message}`,
    );
  }
}

describe("eID upstream declarations", () => {
  it("accepts the demo's development upstream and fills the defaults of a minimal declaration", async () => {
    const config = await load(loginYaml("  eID: { flow: eid, upstream: national }", upstream("national", NATIONAL)));
    expect(config.login.eid_upstreams!.national).toEqual({
      issuer: "https://eid.example.gov",
      client_id: "portcullis",
      client_secret: "s3cret-from-env",
      scopes: "openid profile",
      claims: {},
      sub_prefix: "eid:",
      acr: { forward: {}, performed: {} },
    });
    const demo = await loadInstalledConfig(DEMO_CONFIG_DIR);
    expect(demo.login.login_types!.eID!.upstream).toBe("dev-eid");
    expect(demo.login.eid_upstreams!["dev-eid"]!.client_secret).toBe("dev-eid-broker-secret");
  });

  it("refuses a client secret written in plain text", async () => {
    const plain = upstream("national", [...NATIONAL.slice(0, 2), "client_secret: hunter2"]);
    expect(await issues(loginYaml("  eID: { flow: eid, upstream: national }", plain))).toEqual([
      "login.yaml:+7 eid_upstreams.national.client_secret: is a secret: give it as ${env:NAME} or ${file:PATH}, not in plain text",
    ]);
  });

  it("refuses an eid login type without an upstream, one naming an undeclared upstream, and an upstream on another flow", async () => {
    const types = [
      "  eID: { flow: eid }",
      "  eIDx: { flow: eid, upstream: elsewhere }",
      "  Mfa: { flow: second_factor, methods: [totp], upstream: national }",
    ].join("\n");
    expect(await issues(loginYaml(types, upstream("national", NATIONAL)))).toEqual([
      'login.yaml:+2 login_types.eID: login type "eID" has flow eid but names no upstream (add upstream: <an id under eid_upstreams>)',
      'login.yaml:+3 login_types.eIDx.upstream: upstream "elsewhere" is not declared under eid_upstreams',
      "login.yaml:+4 login_types.Mfa.upstream: only a login type with flow eid names an upstream (Mfa has flow second_factor)",
    ]);
  });

  it("refuses two upstreams with one sub prefix, a scope without openid, plain http to a non-loopback host, and a mapped sub", async () => {
    const upstreams = [
      upstream("national", [...NATIONAL, "scopes: profile email"]),
      upstream("regional", ["issuer: http://eid.example.org", "client_id: p", "client_secret: ${env:EID_SECRET}", "claims: { sub: id }"]),
    ].join("\n");
    expect(await issues(loginYaml("  eID: { flow: eid, upstream: national }", upstreams))).toEqual([
      "login.yaml:+8 eid_upstreams.national.scopes: must include openid (the login needs the upstream's ID token)",
      // A defaulted key has no line of its own: the issue points at its upstream's declaration.
      'login.yaml:+10 eid_upstreams.regional.sub_prefix: sub_prefix "eid:" is already the prefix of upstream "national"',
      "login.yaml:+10 eid_upstreams.regional.issuer: must be https:// (http:// only on localhost, 127.0.0.1 or [::1])",
      "login.yaml:+13 eid_upstreams.regional.claims.sub: sub is not mapped: an eID account's sub is sub_prefix + the upstream's sub",
    ]);
  });

  it("refuses a development upstream whose issuer is not loopback http on its port", async () => {
    const dev = upstream("dev", [
      "issuer: http://localhost:3100",
      "client_id: p",
      "client_secret: ${env:EID_SECRET}",
      "development: { config: dev-eid-upstream, port: 3200 }",
    ]);
    expect(await issues(loginYaml("  eID: { flow: eid, upstream: dev }", dev))).toEqual([
      "login.yaml:+5 eid_upstreams.dev.issuer: a development upstream's issuer is http://localhost:3200 (loopback, on development.port)",
    ]);
  });

  it("accepts an acr mapping of declared acr values (and 1fa), and refuses one naming an acr value login.yaml does not declare, at its key", async () => {
    const declared = "\nacr_values:\n  2fa: { login_type: 2FA }\n";
    const mapped = (forward: string, performed: string) =>
      upstream("national", [...NATIONAL, "acr:", `  forward: ${forward}`, `  performed: ${performed}`]);
    const good = await load(
      loginYaml(
        "  2FA: { flow: two_factor, methods: [password, totp] }\n  eID: { flow: eid, upstream: national }",
        mapped("{ 2fa: loa-high }", "{ loa-high: 2fa, loa-low: 1fa }"),
      ) + declared,
    );
    expect(good.login.eid_upstreams!.national!.acr).toEqual({
      forward: { "2fa": "loa-high" },
      performed: { "loa-high": "2fa", "loa-low": "1fa" },
    });

    const bad = mapped("{ 2fa: loa-high, 3fa: loa-max }", "{ loa-high: 2fa, loa-max: 3FA, loa-low: 1fa }");
    expect(
      await issues(
        loginYaml("  2FA: { flow: two_factor, methods: [password, totp] }\n  eID: { flow: eid, upstream: national }", bad) + declared,
      ),
    ).toEqual([
      'login.yaml:+10 eid_upstreams.national.acr.forward["3fa"]: acr value "3fa" is not declared under acr_values (declared: 2fa)',
      'login.yaml:+11 eid_upstreams.national.acr.performed.loa-max: acr value "3FA" is not declared under acr_values (declared: 2fa), nor is it 1fa',
    ]);
  });
});
