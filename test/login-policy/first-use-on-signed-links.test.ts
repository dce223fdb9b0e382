import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { firstUseOnSignedLinks } from "../../src/login-policy/first-use-on-signed-links.ts";
import { portcullis } from "../support/run-cli.ts";
import { copyConfig, DEMO_CONFIG, editConfig, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * enroll_on_first_use behind signed links (MyVendor): allowed, but never silent. A signature never
 * expires, so whoever opens an account's link first sets up its factor; the demo leaves it off, and
 * check-config, the start and each reload say so while a login type with signature: true turns it on.
 */
const ON = { "login_types.MyVendor.enroll_on_first_use": true };
const WARNING =
  /^login\.yaml login_types\.MyVendor\.enroll_on_first_use: signed links never expire, so whoever opens an account's link first .* set it to false and enroll the accounts: portcullis methods enroll '<client_id>:<account>' <method>$/;

describe("which login types enroll on first use behind signed links", () => {
  it("none in the demo: its MyVendor type leaves it off, and an operator enrolls the accounts", async () => {
    const demo = await loadInstalledConfig(DEMO_CONFIG);
    expect(demo.login.login_types?.MyVendor).toMatchObject({ signature: true, enroll_on_first_use: false });
    expect(firstUseOnSignedLinks(demo.login)).toEqual([]);
  });

  it("a signed type that turns it on, with the key, the risk and the safe setting; an unsigned one is no such case", () => {
    const types = {
      MyVendor: { flow: "second_factor", signature: true, enroll_on_first_use: true },
      StepUp: { flow: "second_factor", signature: false, enroll_on_first_use: true },
    } as never;
    const found = firstUseOnSignedLinks({ login_types: types });
    expect(found.map((f) => f.loginType)).toEqual(["MyVendor"]);
    expect(found[0]!.warning).toMatch(WARNING);
  });
});

describe("check-config", { timeout: 120_000 }, () => {
  const configDir = copyConfig({ "login.yaml": ON });
  afterAll(() => rmSync(configDir, { recursive: true, force: true }));

  it("accepts the setting but warns on stderr, after the verdict, exit status 0; the demo config gets no warning", async () => {
    const [risky, demo] = await Promise.all([
      portcullis(["check-config", "--config", configDir]),
      portcullis(["check-config", "--config", DEMO_CONFIG]),
    ]);
    expect(risky.code, risky.stderr).toBe(0);
    expect(risky.stdout).toMatch(/^config OK: /);
    expect(risky.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^warning: login\.yaml login_types\.MyVendor\.enroll_on_first_use: /),
    ]);
    expect(risky.stderr.slice("warning: ".length).trimEnd()).toMatch(WARNING);
    expect(demo.code).toBe(0);
    expect(demo.stderr).toBe("");
  });
});

describe("the running provider", { timeout: 60_000 }, () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider({ edits: { "login.yaml": ON } });
  });
  afterAll(() => p?.close());

  const warnings = () => p.logs.filter((line) => line.event === "first_use_enrollment_on_signed_links");

  it("warns at start, and again after each reload that keeps it on", async () => {
    expect(warnings()).toEqual([expect.objectContaining({ level: 40, login_type: "MyVendor", msg: expect.stringMatching(WARNING) })]);

    editConfig(p.configDir, "login.yaml", { "login_types.MyVendor.enroll_on_first_use": false });
    expect((await p.reload()).ok).toBe(true);
    expect(warnings()).toHaveLength(1);

    editConfig(p.configDir, "login.yaml", ON);
    expect((await p.reload()).ok).toBe(true);
    expect(warnings()).toHaveLength(2);
  });
});
