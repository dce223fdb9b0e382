/**
 * Reloading a real `portcullis start` process: SIGHUP, `portcullis reload` (which finds it by its pid
 * file and reports the outcome), a refused broken edit while the old policy keeps serving,
 * `check-config --diff` against the files the process last loaded, and `reload.watch`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { portcullis } from "../support/run-cli.ts";
import { eventually, spawnStart, type StartedProcess } from "../support/start-process.ts";
import { copyConfig, editConfig } from "../support/test-provider.ts";
import { reloadStatusPath, type ReloadStatus } from "../../src/reload/reload-status.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl } from "../support/browser-login.ts";

const dirs: string[] = [];
/** Each test spawns a provider process: generous, since start-up loads the sources on a busy machine. */
const PROCESS_TEST_MS = 180_000;
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function startWith(edits: Record<string, unknown> = {}): Promise<{ started: StartedProcess; configDir: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-reload-"));
  const port = await freePort();
  const configDir = copyConfig({
    "provider.yaml": { data_dir: dataDir, "listen.port": port, issuer: `http://127.0.0.1:${port}`, ...edits },
  });
  dirs.push(dataDir, configDir);
  const started = await spawnStart(["--config", configDir]);
  expect(started.url, started.stderr()).toBeDefined();
  return { started, configDir, dataDir };
}

async function stop(started: StartedProcess): Promise<number | NodeJS.Signals> {
  started.child.kill("SIGTERM");
  return started.exited;
}

/** Whether demo-web's login page, as a browser gets it, names the client `name`. */
async function loginPageNames(base: string, name: string): Promise<boolean> {
  const browser = new RawBrowser();
  const page = await browser.follow(await browser.get(authorizeUrl(base)));
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  return page.text.includes(name);
}

/** The reload status the process wrote for an attempt that ended after `since`. */
async function statusAfter(dataDir: string, since: number) {
  await eventually(() => {
    const status = readStatusSync(dataDir);
    return status !== undefined && status.finished_at >= since;
  }, "the reload's status");
  return readStatusSync(dataDir)!;
}

function readStatusSync(dataDir: string): ReloadStatus | undefined {
  try {
    return JSON.parse(readFileSync(reloadStatusPath(dataDir), "utf8")) as ReloadStatus;
  } catch {
    return undefined;
  }
}

describe("portcullis start, reloaded", () => {
  it(
    "reloads on SIGHUP and on `portcullis reload`, refuses a broken edit with its file and line, and shows a reload's changes with check-config --diff",
    async () => {
      const { started, configDir, dataDir } = await startWith();
      const url = started.url!;
      try {
        const pid = started.child.pid!;
        expect(readFileSync(join(dataDir, "portcullis.pid"), "utf8").trim()).toBe(String(pid));

        // check-config --diff: nothing yet, then the edit by client_id.
        expect((await portcullis(["check-config", "--diff", "--config", configDir])).stdout).toContain("no changes");
        editConfig(configDir, "clients.yaml", {
          "clients.0.name": "Renamed by SIGHUP",
          "clients.+0": {
            client_id: "added-app",
            name: "Added",
            type: "public",
            grant_types: ["authorization_code"],
            require_pkce: true,
            redirect_uris: ["http://localhost:3009/cb"],
            allowed_scopes: ["openid"],
          },
        });
        editConfig(configDir, "provider.yaml", { "logging.level": "debug" });
        const diff = await portcullis(["check-config", "--diff", "--config", configDir]);
        expect(diff.code, diff.stderr).toBe(0);
        expect(diff.stdout).toContain(
          ["clients.yaml", '  ~ clients[demo-web].name: "Demo web app" → "Renamed by SIGHUP"', "  + clients[added-app]"].join("\n"),
        );
        expect(diff.stdout).toContain('provider.yaml\n  ~ logging.level: "info" → "debug"  (restart needed)');
        editConfig(configDir, "provider.yaml", { "logging.level": "info" });

        // SIGHUP: the new client name is served.
        const signalledAt = Date.now();
        started.child.kill("SIGHUP");
        expect((await statusAfter(dataDir, signalledAt)).ok).toBe(true);
        // The log line reaches this end of the pipe in its own time.
        await eventually(() => started.stdout().includes('"msg":"configuration reloaded"'), "the reload's log line");
        expect(await loginPageNames(url, "Renamed by SIGHUP")).toBe(true);
        expect((await portcullis(["check-config", "--diff", "--config", configDir])).stdout).toContain("no changes");

        // portcullis reload: signals the process of the pid file and reports its outcome.
        editConfig(configDir, "clients.yaml", { "clients.0.name": "Renamed by portcullis reload" });
        const reloaded = await portcullis(["reload", "--config", configDir]);
        expect(reloaded.code, reloaded.stderr).toBe(0);
        expect(reloaded.stdout).toMatch(new RegExp(`^reloaded: pid ${pid} serves policy [\\w-]{22}\\n$`));
        expect(await loginPageNames(url, "Renamed by portcullis reload")).toBe(true);

        // A broken edit: refused, every error printed with file and line, the old policy keeps serving.
        editConfig(configDir, "clients.yaml", { "clients.0.name": "Never served", "clients.0.grant_types": ["no_such_grant"] });
        const refused = await portcullis(["reload", "--config", configDir]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/clients\.yaml:\d+:\d+ clients\[0\]\.grant_types\[0\]: /);
        expect(refused.stderr).toContain(`reload refused (1 issue): pid ${pid} keeps serving the previous policy`);
        await eventually(
          () => /"msg":"[^"]*clients\.yaml:\d+:\d+ clients\[0\]\.grant_types\[0\]/.test(started.stdout()),
          "the refused reload's log line",
        );
        expect(await loginPageNames(url, "Renamed by portcullis reload")).toBe(true);

        // A restart-only key: refused, naming it.
        editConfig(configDir, "clients.yaml", { "clients.0.grant_types": ["authorization_code", "refresh_token"] });
        editConfig(configDir, "provider.yaml", { "logging.level": "warn" });
        const restartOnly = await portcullis(["reload", "--config", configDir]);
        expect(restartOnly.code).toBe(1);
        expect(restartOnly.stderr).toContain("provider.yaml logging.level: cannot change without a restart (changed)");
      } finally {
        expect(await stop(started), started.stderr().slice(-2000)).toBe(0);
      }
      expect(existsSync(join(dataDir, "portcullis.pid"))).toBe(false);
      // No provider left to signal: said in one line.
      const none = await portcullis(["reload", "--config", configDir]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("no running provider found");
    },
    PROCESS_TEST_MS,
  );

  it(
    "reloads by itself when reload.watch is on and a file in the configuration directory changes",
    async () => {
      const { started, configDir, dataDir } = await startWith({ "reload.watch": true });
      try {
        const editedAt = Date.now();
        editConfig(configDir, "clients.yaml", { "clients.0.name": "Renamed by the watch" });
        expect((await statusAfter(dataDir, editedAt)).ok).toBe(true);
        expect(await loginPageNames(started.url!, "Renamed by the watch")).toBe(true);
      } finally {
        expect(await stop(started), started.stderr().slice(-2000)).toBe(0);
      }
    },
    PROCESS_TEST_MS,
  );
});
