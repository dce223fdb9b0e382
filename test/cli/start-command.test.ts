import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { copyConfig } from "../support/test-provider.ts";

const BIN = fileURLToPath(new URL("../../bin/portcullis.js", import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `portcullis start` as an operator runs it: serve until SIGTERM, then stop cleanly. */
async function runStart(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, "start", ...args], { env: { ...process.env, PORTCULLIS_CONFIG: "", PORT: "", ...env } });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  for (let i = 0; i < 100 && !/listening on (\S+)/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
  const url = /listening on (\S+)/.exec(stderr)?.[1];
  const status = url ? (await fetch(`${url}/.well-known/openid-configuration`)).status : undefined;
  child.kill("SIGTERM");
  return { url, status, code: await exited, stderr: () => stderr };
}

function tempConfig(): string {
  const data = mkdtempSync(join(tmpdir(), "portcullis-start-"));
  const dir = copyConfig({ "provider.yaml": { data_dir: data } });
  dirs.push(data, dir);
  return dir;
}

describe("portcullis start", () => {
  it("serves on the port given by --port with the directory given by --config, and stops on SIGTERM", async () => {
    const port = await freePort();
    const run = await runStart(["--config", tempConfig(), "--port", String(port)], {});
    expect(run.url).toBe(`http://127.0.0.1:${port}`);
    expect(run.status).toBe(200);
    expect(run.code).toBe(0);
    expect(run.stderr()).toContain("SIGTERM received, shutting down");
  });

  it("takes the directory from PORTCULLIS_CONFIG and the port from PORT", async () => {
    const port = await freePort();
    const run = await runStart([], { PORTCULLIS_CONFIG: tempConfig(), PORT: String(port) });
    expect(run.url).toBe(`http://127.0.0.1:${port}`);
    expect(run.status).toBe(200);
    expect(run.code).toBe(0);
  });

  it("prints how to try the demo: the discovery URL and the demo users", async () => {
    const run = await runStart(["--config", tempConfig(), "--port", String(await freePort())], {});
    expect(run.stderr()).toContain("/.well-known/openid-configuration");
    expect(run.stderr()).toMatch(/alice \/ alice-password/);
  });
});

describe("portcullis start on a data directory already in use", () => {
  it("refuses to start a second provider on the same embedded store, without touching the first one's records", async () => {
    const config = tempConfig();
    const first = spawn(process.execPath, [BIN, "start", "--config", config, "--port", String(await freePort())], { env: { ...process.env, PORTCULLIS_CONFIG: "", PORT: "" } });
    let firstErr = "";
    first.stderr.on("data", (c) => (firstErr += c));
    first.stdout.resume();
    for (let i = 0; i < 100 && !/listening on (\S+)/.test(firstErr); i++) await new Promise((r) => setTimeout(r, 100));
    const url = /listening on (\S+)/.exec(firstErr)![1]!;
    try {
      const second = await runStart(["--config", config, "--port", String(await freePort())], {});
      expect(second.url).toBeUndefined();
      expect(second.code).toBe(1);
      expect(second.stderr()).toMatch(/in use by process \d+/);
      expect(second.stderr()).not.toMatch(/^\s+at /m);
      // The first provider's durable records are still the ones on disk: a revocation it makes survives its restart.
      const form = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";
      const issued = await fetch(`${url}/connect/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
      const token = ((await issued.json()) as { access_token: string }).access_token;
      const auth = { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from("demo-service:demo-service-secret").toString("base64")}` };
      expect((await fetch(`${url}/connect/revocation`, { method: "POST", headers: auth, body: `token=${token}` })).status).toBe(200);
      first.kill("SIGTERM");
      await new Promise((r) => first.once("close", r));
      const restarted = spawn(process.execPath, [BIN, "start", "--config", config, "--port", String(await freePort())], { env: { ...process.env, PORTCULLIS_CONFIG: "", PORT: "" } });
      let restartedErr = "";
      restarted.stderr.on("data", (c) => (restartedErr += c));
      restarted.stdout.resume();
      for (let i = 0; i < 100 && !/listening on (\S+)/.test(restartedErr); i++) await new Promise((r) => setTimeout(r, 100));
      const again = /listening on (\S+)/.exec(restartedErr)![1]!;
      const introspected = await fetch(`${again}/connect/introspect`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from("acme-api:acme-api-secret").toString("base64")}` },
        body: `token=${token}`,
      });
      expect(await introspected.json()).toEqual({ active: false });
      restarted.kill("SIGTERM");
      await new Promise((r) => restarted.once("close", r));
    } finally {
      first.kill("SIGKILL");
    }
  });
});
