import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { spawnStart } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

/** `portcullis start --port N` and the issuer: what discovery says, what the banner and the log say. */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const PROCESS_TEST_MS = 120_000;

function demoConfig(edits: Record<string, unknown> = {}): string {
  const data = mkdtempSync(join(tmpdir(), "portcullis-issuer-"));
  const dir = copyConfig({ "provider.yaml": { data_dir: data, ...edits } });
  dirs.push(data, dir);
  return dir;
}

/** Starts with `--port`, reads discovery's issuer, stops; the log lines come after the exit (stdout is buffered). */
async function startOnPort(configDir: string, port: number) {
  const started = await spawnStart(["--config", configDir, "--port", String(port)]);
  expect(started.url, started.stderr()).toBe(`http://127.0.0.1:${port}`);
  const discovery = (await (await fetch(`${started.url}/.well-known/openid-configuration`)).json()) as {
    issuer: string;
    token_endpoint: string;
  };
  started.child.kill("SIGTERM");
  expect(await started.exited).toBe(0);
  const logs = started
    .stdout()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; msg: string; issuer?: string; port?: number });
  // Only the listener/issuer warning, which carries the issuer and the port (the demo's development
  // adapters and its development eID upstream warn too, about themselves).
  return {
    discovery,
    banner: started.stderr(),
    warnings: logs.filter((l) => l.level === 40 && l.issuer !== undefined && l.port !== undefined).map((l) => l.msg),
  };
}

describe("portcullis start --port and the issuer", () => {
  it(
    "moves the demo's loopback issuer (on listen.port) to the overriding port, and the banner says so",
    async () => {
      const port = await freePort();
      const run = await startOnPort(demoConfig(), port);
      expect(run.discovery.issuer).toBe(`http://localhost:${port}`);
      expect(run.discovery.token_endpoint).toBe(`http://localhost:${port}/connect/token`);
      expect(run.banner).toContain(`issuer:    http://localhost:${port} (moved with the port from http://localhost:3000`);
      // The demo's development eID provider knows the broker's callback on :3000 only: the eID link says what to add.
      expect(run.banner).toContain(`    http://localhost:${port}/eID/authorize?`);
      expect(run.banner).toContain(
        `    (first add http://localhost:${port}/eID/callback to the redirect_uris in dev-eid-upstream/clients.yaml under the config directory: it lists the callback at http://localhost:3000 only)`,
      );
      expect(run.warnings).toEqual([]);
    },
    PROCESS_TEST_MS,
  );

  it(
    "keeps a loopback issuer on another port and warns once, naming both ports and what to change",
    async () => {
      const port = await freePort();
      const run = await startOnPort(demoConfig({ issuer: "http://localhost:8080" }), port);
      expect(run.discovery.issuer).toBe("http://localhost:8080");
      expect(run.warnings).toEqual([
        `the issuer http://localhost:8080 names port 8080 but the provider listens on port ${port}, so discovery and tokens send clients to a port nobody answers on: ` +
          `set issuer in provider.yaml to http://localhost:${port} or start on port 8080 (--port 8080 or PORT=8080)`,
      ]);
    },
    PROCESS_TEST_MS,
  );

  it(
    "keeps a public issuer as it is, without a warning (a proxy in front is normal)",
    async () => {
      const port = await freePort();
      const run = await startOnPort(demoConfig({ issuer: "https://login.example.com" }), port);
      expect(run.discovery.issuer).toBe("https://login.example.com");
      expect(run.warnings).toEqual([]);
    },
    PROCESS_TEST_MS,
  );
});
