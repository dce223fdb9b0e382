import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { spawnStart, type StartedProcess } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

/**
 * What `portcullis start` does when it cannot serve: one line that says what to fix, exit 1 (so a
 * supervisor sees the failure and restarts it), nothing written, and no process left running.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const STACK_LINE = /^\s+at /m;
/** Each test spawns a provider process: generous, since start-up loads the sources on a busy machine. */
const PROCESS_TEST_MS = 120_000;

/** A demo config whose data directory does not exist yet (so anything written there shows). */
function configWithFreshDataDir(edits: Record<string, unknown> = {}): { configDir: string; dataDir: string } {
  const root = mkdtempSync(join(tmpdir(), "portcullis-refusal-"));
  const dataDir = join(root, "data");
  const configDir = copyConfig({ "provider.yaml": { data_dir: dataDir, ...edits } });
  writeFileSync(join(configDir, "encryption.key"), "test-encryption-key-material-of-more-than-32-characters\n");
  dirs.push(root, configDir);
  return { configDir, dataDir };
}

/** The exit code (or the signal that ended it), or "still running" once a minute has passed (it is then killed). */
async function exitCode(started: StartedProcess): Promise<number | NodeJS.Signals | "still running"> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<"still running">((resolve) => (timer = setTimeout(() => resolve("still running"), 60_000)));
  const code = await Promise.race([started.exited, limit]);
  clearTimeout(timer);
  if (code === "still running") started.child.kill("SIGKILL");
  return code;
}

describe("portcullis start on a port that is in use", () => {
  it(
    "says so in one line with how to choose another port, exits 1, and writes nothing",
    async () => {
      const holder = createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
      try {
        const { configDir, dataDir } = configWithFreshDataDir();
        const started = await spawnStart(["--config", configDir, "--port", String(port)]);
        expect(await exitCode(started)).toBe(1);
        expect(started.url).toBeUndefined();
        expect(started.stderr()).toBe(
          `portcullis start: cannot start: port ${port} on 127.0.0.1 is already in use; choose another port with --port N or the PORT environment variable\n`,
        );
        // No store, no encryption key, no signing key: the port is checked before any of them.
        expect(existsSync(dataDir)).toBe(false);
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    },
    PROCESS_TEST_MS,
  );
});

describe("portcullis start with a network store that is down", () => {
  const storeEdits = { "store.url": "${env:STORE_URL}", "secrets.encryption_key": "${file:encryption.key}" };

  for (const [backend, url] of [
    ["redis", (port: number) => `redis://operator:s3cret-pw@127.0.0.1:${port}`],
    ["postgres", (port: number) => `postgres://operator:s3cret-pw@127.0.0.1:${port}/portcullis`],
  ] as const) {
    it(
      `exits 1 with one line naming the ${backend} store without its credentials`,
      async () => {
        const closedPort = await freePort();
        const { configDir } = configWithFreshDataDir(storeEdits);
        const started = await spawnStart(["--config", configDir, "--port", "0"], { STORE_URL: url(closedPort) });
        expect(await exitCode(started)).toBe(1);
        expect(started.url).toBeUndefined();
        const stderr = started.stderr();
        expect(stderr.trimEnd().split("\n")).toHaveLength(1);
        expect(stderr).toMatch(
          new RegExp(
            `^portcullis start: cannot start: the ${backend} store at ${backend}://\\*\\*\\*@127\\.0\\.0\\.1:${closedPort}\\S* is unavailable`,
          ),
        );
        expect(stderr + started.stdout()).not.toContain("s3cret-pw");
        expect(stderr).not.toMatch(STACK_LINE);
      },
      PROCESS_TEST_MS,
    );
  }
});

describe("portcullis start with a store URL it cannot use", () => {
  it(
    "exits 1 with one line saying what is wrong with a Sentinel URL, without its password or a stack",
    async () => {
      const { configDir } = configWithFreshDataDir({ "store.url": "${env:STORE_URL}", "secrets.encryption_key": "${file:encryption.key}" });
      const started = await spawnStart(["--config", configDir, "--port", "0"], {
        STORE_URL: "redis+sentinel://:s3cret-pw@127.0.0.1:26379/primary?wiat=1",
      });
      expect(await exitCode(started)).toBe(1);
      const stderr = started.stderr();
      expect(stderr).toBe(
        'portcullis start: cannot start: store URL "redis+sentinel://***@127.0.0.1:26379/primary?wiat=1": unknown parameter "wiat" (a Sentinel URL takes prefix, wait and wait_timeout_ms)\n',
      );
      expect(stderr + started.stdout()).not.toContain("s3cret-pw");
    },
    PROCESS_TEST_MS,
  );
});
