/**
 * The signals of `portcullis start` from its first moment (src/cli/support/start-signals.ts): a SIGHUP
 * that lands before the provider can reload is kept for it, a SIGTERM is a graceful stop however early,
 * a second SIGTERM changes nothing and a second SIGINT means "now". Real processes, real signals.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { eventually, spawnStart } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("portcullis start's signals", () => {
  it("keeps a SIGHUP that came before the reload handler, stops once on SIGTERM, ignores a second SIGTERM, and exits 130 on a second SIGINT", async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, "fixtures", "start-signals-child.ts")], { cwd: ROOT });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | NodeJS.Signals>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal!)));
    try {
      await eventually(() => output.includes("ready"), "the child to set its hangup handler");
      expect(output).toBe("hangup 1\nready\n");
      child.kill("SIGHUP");
      await eventually(() => output.includes("hangup 2"), "the second hangup");
      child.kill("SIGTERM");
      await eventually(() => output.includes("shutdown SIGTERM"), "the shutdown");
      child.kill("SIGTERM");
      child.kill("SIGHUP");
      // Still alive after the second SIGTERM: the SIGHUP sent after it is answered.
      await eventually(() => output.includes("hangup 3"), "the hangup after a second SIGTERM");
      expect(output.match(/shutdown/g)).toHaveLength(1);
      child.kill("SIGINT");
      expect(await exited).toBe(130);
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("stops gracefully on a SIGTERM sent the moment it says where it listens: exit 0, pid file removed", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "portcullis-signals-"));
    const configDir = copyConfig({ "provider.yaml": { data_dir: dataDir } });
    dirs.push(dataDir, configDir);
    const started = await spawnStart(["--config", configDir, "--port", String(await freePort())]);
    expect(started.url, started.stderr()).toBeDefined();
    // What a supervisor's health check or a test may do at once: the pid file is there, the signal is answered.
    expect(existsSync(join(dataDir, "portcullis.pid"))).toBe(true);
    started.child.kill("SIGTERM");
    expect(await started.exited, started.stderr().slice(-2000)).toBe(0);
    expect(started.stderr()).toContain("SIGTERM received, shutting down");
    expect(existsSync(join(dataDir, "portcullis.pid"))).toBe(false);
  }, 180_000);
});
