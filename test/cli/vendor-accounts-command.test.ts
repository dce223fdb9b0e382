import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { portcullis } from "../support/run-cli.ts";
import { copyConfig } from "../support/test-provider.ts";

/**
 * The operator's tools for MyVendor accounts, as real processes on a copy of the demo config:
 * `portcullis methods ... '<client_id>:<account>'` and `portcullis vendor sign`. demo-vendor may use
 * MyVendor and has a signing key; demo-web has none; demo-portal is given a key but no MyVendor.
 */
const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
const configDir = copyConfig({
  "provider.yaml": { data_dir: dataDir, "store.url": "embedded", "listen.port": 0 },
  "clients.yaml": { "clients.4.allowed_login_types": ["2FA"], "clients.4.signing_key": "${file:demo-vendor-signing-key}" },
});
afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (...args: string[]) => portcullis([...args, "--config", configDir]);
// Other methods of the demo config may warn on stderr (development adapters): the command's own line is the last.
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);
const DEMO_KEY = "demo-vendor-signing-key-DEMO-ONLY";

// Each case starts the CLI with the TypeScript loader, some more than once: minutes on a busy machine.
describe("vendor accounts in the CLI", { timeout: 180_000 }, () => {
  it("enrolls TOTP for a vendor account and prints its otpauth URI; list and reset take the account too", async () => {
    const enrolled = await run("methods", "enroll", "demo-vendor:acme-support", "totp");
    expect(enrolled.code, enrolled.stderr).toBe(0);
    expect(enrolled.stdout).toMatch(/^otpauth:\/\/totp\/Portcullis:demo-vendor:acme-support\?secret=[A-Z2-7]{32}&issuer=Portcullis\n$/);
    expect((await run("methods", "list", "demo-vendor:acme-support")).stdout).toMatch(/^totp\s+enrolled /m);
    expect((await run("methods", "reset", "demo-vendor:acme-support", "totp")).stdout).toBe("totp: removed\n");
  });

  it("records a vendor account's e-mail address and phone number for the code methods (MyVendor's extensions)", async () => {
    const email = await run("methods", "enroll", "demo-vendor:acme-support", "email", "address=support@Acme.Example");
    expect(email.code, email.stderr).toBe(0);
    expect(email.stdout).toBe("address support@acme.example recorded as confirmed for demo-vendor:acme-support (method email)\n");
    const sms = await run("methods", "enroll", "demo-vendor:acme-support", "sms", "phone=+44 7700 900123");
    expect(sms.code, sms.stderr).toBe(0);
    expect(sms.stdout).toBe("phone +447700900123 recorded as confirmed for demo-vendor:acme-support (method sms)\n");
    const listed = (await run("methods", "list", "demo-vendor:acme-support")).stdout;
    expect(listed).toMatch(/^email\s+enrolled /m);
    expect(listed).toMatch(/^sms\s+enrolled /m);
    expect((await run("methods", "reset", "demo-vendor:acme-support")).stdout).toContain("email: removed\n");
  });

  it("refuses, in one line, an account of a client that does not exist or cannot make vendor logins", async () => {
    const refusals = [];
    // One after another: each opens the embedded store, which one process holds at a time.
    for (const account of ["nobody:acme-support", "demo-web:acme-support", "demo-portal:acme-support", "demo-vendor:"])
      refusals.push(await run("methods", "enroll", account, "totp"));
    for (const result of refusals) expect(result.code).toBe(1);
    expect(refusals.map((r) => lastLine(r.stderr))).toEqual([
      'portcullis methods: no client "nobody" in clients.yaml, so no vendor account "nobody:acme-support"',
      'portcullis methods: client "demo-web" has no signing_key, so it has no vendor accounts',
      'portcullis methods: client "demo-portal" may not use login_type MyVendor (allowed_login_types), so it has no vendor accounts',
      'portcullis methods: "demo-vendor:" is no vendor account: expected <client_id>:<account>',
    ]);
  });

  it("signs a MyVendor link with the client's signing key", async () => {
    const signed = await run(
      "vendor",
      "sign",
      "--client",
      "demo-vendor",
      "--redirect-uri",
      "http://localhost:3004/callback",
      "--login-hint",
      "demo-vendor:acme-support",
    );
    expect(signed.code, signed.stderr).toBe(0);
    const expected = createHash("sha1").update(`http://localhost:3004/callbackdemo-vendor:acme-support${DEMO_KEY}`).digest("hex");
    expect(signed.stdout).toBe(`${expected}\n`);
  });

  it("signs only what the provider would accept", async () => {
    const refusals = await Promise.all([
      run(
        "vendor",
        "sign",
        "--client",
        "demo-vendor",
        "--redirect-uri",
        "http://localhost:3004/callbac",
        "--login-hint",
        "kdemo-vendor:acme-support",
      ),
      run(
        "vendor",
        "sign",
        "--client",
        "demo-vendor",
        "--redirect-uri",
        "http://localhost:3004/callback",
        "--login-hint",
        "demo-web:acme-support",
      ),
      run(
        "vendor",
        "sign",
        "--client",
        "demo-web",
        "--redirect-uri",
        "http://localhost:3001/callback",
        "--login-hint",
        "demo-web:acme-support",
      ),
      run("vendor", "sign", "--client", "demo-vendor"),
    ]);
    expect(refusals.map((r) => [r.code, r.stdout, lastLine(r.stderr)])).toEqual([
      [
        1,
        "",
        'portcullis vendor: "http://localhost:3004/callbac" is not a registered redirect URI of demo-vendor (http://localhost:3004/callback)',
      ],
      [1, "", "portcullis vendor: login_hint must be demo-vendor:<account>"],
      [1, "", 'portcullis vendor: client "demo-web" has no signing_key'],
      [2, "", expect.stringMatching(/^usage: portcullis vendor /)],
    ]);
  });
});
