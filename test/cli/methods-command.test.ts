import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyConfig } from "../support/test-provider.ts";
import { portcullis } from "../support/run-cli.ts";
import { startProvider } from "../../src/start-provider.ts";

/** The operator's `portcullis methods` on a copy of the demo config with the test PIN method, on the embedded store. */
const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
const configDir = copyConfig({
  "provider.yaml": { data_dir: dataDir, "store.url": "embedded", "listen.port": 0 },
  "login.yaml": { "methods.pin": { from: resolve(import.meta.dirname, "../plugins/pin") } },
});
afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const methods = (...args: string[]) => portcullis(["methods", ...args, "--config", configDir]);

// Each case runs the real CLI several times (a process start with the TypeScript loader each): minutes on a busy machine.
describe("portcullis methods", { timeout: 120_000 }, () => {
  it("enrolls a method for a user through its plugin, lists it, and resets it", async () => {
    const enrolled = await methods("enroll", "alice", "pin", "pin=1357");
    expect(enrolled.stderr).toBe("");
    expect(enrolled).toMatchObject({ code: 0, stdout: "PIN set for E10001\n" });

    const listed = await methods("list", "alice");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^pin\s+enrolled \d{4}-\d\d-\d\dT/m);

    const reset = await methods("reset", "alice", "pin");
    expect(reset).toMatchObject({ code: 0, stdout: "pin: removed\n" });
    expect((await methods("list", "alice")).stdout).toMatch(/^pin\s+-$/m);
    expect((await methods("reset", "alice", "pin")).stdout).toBe("pin: was not enrolled\n");

    // The operator's changes are on the audit trail the config names (the demo's audit.log under data_dir), in order.
    const audited = readFileSync(join(dataDir, "audit.log"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // (The provider the test started for the user may have generated its first signing key: key.rotated.)
    const enrollmentChanges = audited.filter((event) => event.type !== "key.rotated");
    expect(enrollmentChanges.map(({ type, sub, method, change }) => ({ type, sub, method, change }))).toEqual([
      { type: "enrollment.changed", sub: "E10001", method: "pin", change: "added" },
      { type: "enrollment.changed", sub: "E10001", method: "pin", change: "removed" },
    ]);
  });

  it("passes the plugin's refusal on as one line", async () => {
    const result = await methods("enroll", "alice", "pin", "pin=12");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("portcullis methods: pin: give pin=<4 to 8 digits>\n");
  });

  it("names an unknown user or method without a stack", async () => {
    expect(await methods("list", "mallory")).toMatchObject({ code: 1, stderr: 'portcullis methods: no user "mallory" in the directory\n' });
    const unknown = await methods("reset", "alice", "carrier-pigeon");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^portcullis methods: "carrier-pigeon" is not a configured method that can be enrolled \(.*pin.*\)\n$/);
  });

  it("explains usage mistakes", async () => {
    const result = await portcullis(["methods", "wipe", "alice"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("expected methods list USER");
  });

  it("says to stop the provider when it holds the embedded store", async () => {
    const running = await startProvider({ configDir, port: 0 });
    try {
      const result = await methods("list", "alice");
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/stop the provider first/);
    } finally {
      await running.close();
    }
  });
});
