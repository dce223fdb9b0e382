import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/crypto/password-hash.ts";
import { verifySecret } from "../../src/crypto/secret-hash.ts";
import { portcullis } from "../support/run-cli.ts";
import { DEMO_CLIENTS_ANY_LOGIN_TYPE, DEMO_CONFIG_DIR, removeTempConfigDirs, tempConfigDir } from "../config/temp-config-dir.ts";

afterAll(removeTempConfigDirs);

/** A stack trace line, which an operator's mistake must never produce. */
const STACK_LINE = /^\s+at /m;

describe("portcullis CLI", () => {
  it("check-config accepts the demo config", async () => {
    const result = await portcullis(["check-config", "--config", DEMO_CONFIG_DIR]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^config OK: .*config\/? \(\d+ clients, \d+ scopes, \d+ users\)\n$/);
  });

  it("check-config prints every issue of a broken config and exits 1 without a stack", async () => {
    const dir = await tempConfigDir({ "provider.yaml": "issuer: http://localhost:3000\nlisten:\n  port: abc\n", "users.yaml": null });
    const result = await portcullis(["check-config", "--config", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `${dir}/provider.yaml:3:9 listen.port: must be integer (got "abc")`,
        `${dir}/users.yaml: file not found`,
        `config invalid: ${dir} (2 issues)`,
        "",
      ].join("\n"),
    );
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it("check-config checks each factor plugin's own settings", async () => {
    const pin = new URL("../plugins/pin", import.meta.url).pathname;
    // No login types here: the demo clients may then name none either.
    const dir = await tempConfigDir({
      "login.yaml": `methods:\n  password: {}\n  pin: { from: ${pin}, pepper: short }\ndefault_flow:\n  methods: [password]\n`,
      "clients.yaml": DEMO_CLIENTS_ANY_LOGIN_TYPE,
    });
    const result = await portcullis(["check-config", "--config", dir]);
    expect(result.code).toBe(1);
    // Located and worded as the core files' schema errors are: line and column, the key, what is expected.
    expect(result.stderr).toMatch(/login\.yaml:3:\d+ methods\.pin\.pepper: must be at least 8 characters long\n/);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it("check-config locates a factor plugin's settings errors: the line, the key, what is allowed, the value", async () => {
    const pin = new URL("../plugins/pin", import.meta.url).pathname;
    const loginYaml = [
      "methods:",
      "  password: {}",
      "  totp:",
      "    issuer: Portcullis",
      "    digits: 66",
      "    digit: 6",
      "    period: thirty",
      `  pin: { from: ${pin}, pepper: 12345678901 }`,
      "default_flow:",
      "  methods: [password]",
      "",
    ].join("\n");
    const dir = await tempConfigDir({ "login.yaml": loginYaml, "clients.yaml": DEMO_CLIENTS_ANY_LOGIN_TYPE });
    const result = await portcullis(["check-config", "--config", dir]);
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toContain(
      `${dir}/login.yaml:6:5 methods.totp.digit: unknown key "digit" (allowed: issuer, digits, period, from, amr, attempts)`,
    );
    expect(lines).toContain(`${dir}/login.yaml:5:13 methods.totp.digits: must be one of: 6, 8 (got 66)`);
    expect(lines).toContain(`${dir}/login.yaml:7:13 methods.totp.period: must be integer (got "thirty")`);
    // A pepper is a secret: what is wrong with it is said, its value is not.
    expect(lines.find((line) => line.includes("methods.pin.pepper"))).toMatch(
      /^\S+login\.yaml:8:\d+ methods\.pin\.pepper: must be string$/,
    );
    expect(result.stderr).not.toContain("12345678901");
  });

  it("check-config takes the directory from PORTCULLIS_CONFIG", async () => {
    const dir = await tempConfigDir({ "users.yaml": null });
    const result = await portcullis(["check-config"], { env: { PORTCULLIS_CONFIG: dir } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${dir}/users.yaml: file not found`);
  });

  it("start with a broken config prints the issues and exits 1 without a stack", async () => {
    const dir = await tempConfigDir({ "clients.yaml": "clients:\n  - client_id: x\n" });
    const result = await portcullis(["start", "--config", dir, "--port", "0"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${dir}/clients.yaml:2:5 clients[0].type: missing required key "type"`);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it("hash-secret prints a hash that verifySecret accepts", async () => {
    const result = await portcullis(["hash-secret", "foo"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(verifySecret("foo", result.stdout.trim())).toBe(true);
  });

  it("hash-secret without a secret generates one and prints both, labelled", async () => {
    const result = await portcullis(["hash-secret"]);
    expect(result.code).toBe(0);
    const [, secret, hash] = /^secret: ([A-Za-z0-9_-]{43})\nhash: +(sha256:[0-9a-f]{64})\n$/.exec(result.stdout) ?? [];
    expect(verifySecret(secret!, hash!)).toBe(true);
  });

  it("hash-password hashes the first line of piped stdin", async () => {
    const result = await portcullis(["hash-password"], { input: "correct horse\nsecond line\n" });
    expect(result.code).toBe(0);
    expect(await verifyPassword("correct horse", result.stdout.trim())).toBe(true);
    expect(result.stdout + result.stderr).not.toContain("correct horse");
  });

  it("hash-password --password works for scripts but warns", async () => {
    const result = await portcullis(["hash-password", "--password", "s3cret"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: .*shell history/);
    expect(await verifyPassword("s3cret", result.stdout.trim())).toBe(true);
  });

  it("hash-password refuses an empty password", async () => {
    const result = await portcullis(["hash-password"], { input: "\n" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("portcullis hash-password: the password is empty\n");
  });

  it("--help lists the commands", async () => {
    const result = await portcullis(["--help"]);
    expect(result.code).toBe(0);
    for (const name of ["start", "check-config", "hash-secret", "hash-password"]) expect(result.stdout).toContain(`  ${name} `);
  });

  it("leaves quietly when the reader of its output goes away (`portcullis … | head`): no EPIPE stack", async () => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL("../../bin/portcullis.js", import.meta.url)), "check-config", "--config", DEMO_CONFIG_DIR],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    // The reading end is closed before the CLI writes a line: every write it makes fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("an unknown command prints the usage on stderr and exits 2", async () => {
    const result = await portcullis(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^portcullis: unknown command "frobnicate"\n\nusage: portcullis <command>/);
  });

  it("an unknown option or a bad port exits 2 with the command's usage", async () => {
    const option = await portcullis(["check-config", "--colour"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(
      "portcullis check-config: Unknown option '--colour'\nusage: portcullis check-config [--config DIR] [--user NAME] [--diff]\n",
    );
    const port = await portcullis(["start", "--port", "99999"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be a port number from 0 to 65535 (got "99999")');
  });

  it("takes a generated id that begins with '-' (a kid, jti or sid is base64url) as the argument it is", async () => {
    const dir = await tempConfigDir({});
    const trace = await portcullis(["audit", "trace", "-J0f3kQ", "--config", dir, "--file", `${dir}/no-such-audit.log`]);
    expect(trace.stderr).not.toContain("Unknown option");
    expect(trace.stderr).toContain("no-such-audit.log");
    // A real option of one letter it does not know is still refused.
    const option = await portcullis(["audit", "trace", "-x"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("Unknown option '-x'");
  });
});
