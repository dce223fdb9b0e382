/**
 * `portcullis users sessions|sign-out` as an operator runs it: the real CLI in a child process, on a copy
 * of the demo configuration with the embedded store. The embedded store belongs to one process, so the
 * provider is stopped while the CLI works on it (its SSO sessions end with it; the refresh families and
 * reference tokens are durable and outlive it): what the CLI revokes stays revoked when it starts again.
 * Two nodes on Redis with the CLI beside them running is test/e2e/sign-out-everywhere.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProvider, type RunningProvider } from "../../src/start-provider.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { portcullis } from "../support/run-cli.ts";
import { freePort } from "../support/services.ts";
import { signInThrough, tokenState, type SignedIn, type SigningClient } from "../support/signed-in-user.ts";
import { copyConfig } from "../support/test-provider.ts";

const WEB: SigningClient = { id: "demo-web", secret: "demo-web-secret", redirectUri: "http://localhost:3001/callback" };
const PORTAL: SigningClient = { id: "demo-portal", secret: "demo-portal-secret", redirectUri: "http://localhost:3003/callback" };

const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
let configDir: string;
let url: string;
afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** The provider on the config, at the same address every time (so its issuer stays the same across restarts). */
const start = (): Promise<RunningProvider> => startProvider({ configDir, drainMs: 0 });
const users = (...args: string[]) => portcullis(["users", ...args, "--config", configDir]);

// Each case runs the real CLI (a process start with the provider's modules each): minutes on a busy machine.
describe("portcullis users", { timeout: 120_000 }, () => {
  let family: SignedIn;
  let reference: SignedIn;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    configDir = copyConfig({ "provider.yaml": { issuer: url, "listen.port": port, data_dir: dataDir, "store.url": "embedded" } });
    const running = await start();
    const browser = new RawBrowser();
    family = await signInThrough(browser, running, WEB, "openid profile acme offline_access");
    reference = await signInThrough(browser, running, PORTAL, "openid profile acme");
    await running.close();
  }, 60_000);

  it("lists what alice holds once the provider has stopped: her family and her reference token, no session", async () => {
    const listed = await users("sessions", "alice");
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^alice \(sub E10001\)\n\nsessions: none\n\nrefresh-token families \(1\):\n {2}FAMILY +CLIENT +ISSUED +EXPIRES +SESSION\n {2}\S+ +demo-web /,
    );
    expect(listed.stdout).toMatch(/access tokens outside a family \(1\):\n {2}JTI .*\n {2}\S+ +demo-portal +reference /);

    const json = await users("sessions", "E10001", "--json");
    expect(json.code).toBe(0);
    const access = JSON.parse(json.stdout) as { user: unknown; refreshFamilies: Array<{ clientId: string; sid: string }> };
    expect(access.user).toEqual({ sub: "E10001", username: "alice" });
    expect(access.refreshFamilies).toEqual([expect.objectContaining({ clientId: "demo-web", sid: family.sid })]);
  });

  it("signs alice out: it prints what it ended, audits it, and it stays ended when the provider starts again", async () => {
    const ended = await users("sign-out", "alice");
    expect(ended.stderr).toBe("");
    expect(ended.code).toBe(0);
    const signoutId = /^signed out alice \(sub E10001\) everywhere: signout_id (\S+) \(portcullis audit trace -- \1\)$/m.exec(
      ended.stdout,
    )?.[1];
    expect(signoutId, ended.stdout).toBeDefined();
    expect(ended.stdout).toContain("sessions ended: none");
    expect(ended.stdout).toMatch(/refresh-token families revoked \(with every access token they issued\) \(1\):\n.*\n {2}\S+ +demo-web\n/);
    expect(ended.stdout).toMatch(/access tokens outside a family ended .* \(1\):\n.*\n {2}\S+ +demo-portal +reference\n/);
    expect(ended.stdout).toContain("back-channel logout: none");

    const audited = readFileSync(join(dataDir, "audit.log"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audited.find((event) => event.type === "user.signed_out")).toMatchObject({
      sub: "E10001",
      signout_id: signoutId,
      by: "cli",
      operator: expect.any(String),
      sessions: 0,
      refresh_families: 1,
      access_tokens: 1,
    });

    const running = await start();
    try {
      expect(await tokenState(running, family, WEB)).toEqual({
        userinfo: 401,
        active: false,
        refresh: { status: 400, error: "invalid_grant" },
      });
      expect(await tokenState(running, reference, PORTAL)).toEqual({ userinfo: 401, active: false, refresh: undefined });
    } finally {
      await running.close();
    }
    expect((await users("sign-out", "alice", "--json")).stdout).toContain('"refreshFamilies": []');
  });

  it("names an unknown user, and a usage mistake, without a stack", async () => {
    expect(await users("sign-out", "mallory")).toMatchObject({
      code: 1,
      stderr: 'portcullis users: no user "mallory": not a login name or sub in the directory, nor an eID or vendor account\n',
    });
    const usage = await portcullis(["users", "wipe", "alice"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("expected users sessions USER | users sign-out USER");
  });

  it("says to stop the provider, or use the admin API, while a provider holds the embedded store", async () => {
    const running = await start();
    try {
      const result = await users("sign-out", "alice");
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/stop the provider first, or sign the user out through the admin API \(docs\/admin-api\.md\)\n$/);
    } finally {
      await running.close();
    }
  });
});
