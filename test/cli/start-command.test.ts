import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { eventually, spawnStart } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

const dirs: string[] = [];
/** Each test spawns provider processes: generous, since start-up loads the sources on a busy machine. */
const PROCESS_TEST_MS = 120_000;
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** `portcullis start` as an operator runs it: serve until SIGTERM, then stop cleanly. */
async function runStart(args: string[], env: NodeJS.ProcessEnv) {
  const started = await spawnStart(args, env);
  const status = started.url ? (await fetch(`${started.url}/.well-known/openid-configuration`)).status : undefined;
  started.child.kill("SIGTERM");
  return { url: started.url, status, code: await started.exited, stderr: started.stderr };
}

function tempConfig(): string {
  const data = mkdtempSync(join(tmpdir(), "portcullis-start-"));
  const dir = copyConfig({ "provider.yaml": { data_dir: data } });
  dirs.push(data, dir);
  return dir;
}

describe("portcullis start", () => {
  it(
    "serves on the port given by --port with the directory given by --config, and stops on SIGTERM",
    async () => {
      const port = await freePort();
      const run = await runStart(["--config", tempConfig(), "--port", String(port)], {});
      expect(run.url).toBe(`http://127.0.0.1:${port}`);
      expect(run.status).toBe(200);
      expect(run.code).toBe(0);
      expect(run.stderr()).toContain("SIGTERM received, shutting down");
    },
    PROCESS_TEST_MS,
  );

  it(
    "takes the directory from PORTCULLIS_CONFIG and the port from PORT",
    async () => {
      const port = await freePort();
      const run = await runStart([], { PORTCULLIS_CONFIG: tempConfig(), PORT: String(port) });
      expect(run.url).toBe(`http://127.0.0.1:${port}`);
      expect(run.status).toBe(200);
      expect(run.code).toBe(0);
    },
    PROCESS_TEST_MS,
  );

  it(
    "prints how to try the demo: the discovery URL, a browser login URL that works, and the demo users",
    async () => {
      const started = await spawnStart(["--config", tempConfig(), "--port", String(await freePort())]);
      try {
        expect(started.stderr()).toContain("/.well-known/openid-configuration");
        expect(started.stderr()).toMatch(/alice \/ alice-password/);
        const login = /(http:\/\/\S+\/connect\/authorize\?\S+)/.exec(started.stderr())?.[1];
        expect(login).toContain("client_id=demo-web");
        // The printed URL starts a login: the browser is sent to the login page.
        const answer = await fetch(login!.replace(/^http:\/\/[^/]+/, started.url!), { redirect: "manual" });
        expect(answer.status).toBe(303);
        expect(answer.headers.get("location")).toMatch(/^\/interaction\//);
        // So does the two-factor one.
        const twoFactor = /(http:\/\/\S+\/connect\/authorize\?\S+login_type=2FA)/.exec(started.stderr())?.[1];
        const planned = await fetch(twoFactor!.replace(/^http:\/\/[^/]+/, started.url!), { redirect: "manual" });
        expect(planned.status).toBe(303);
        expect(planned.headers.get("location")).toMatch(/^\/interaction\//);
      } finally {
        started.child.kill("SIGTERM");
        await started.exited;
      }
    },
    PROCESS_TEST_MS,
  );
});

describe("portcullis start --demo-parties (what npm start runs)", () => {
  it(
    "starts the custom QR-code login demo's channel service and sites beside the provider, says where, and stops them with it",
    async () => {
      const started = await spawnStart(["--config", tempConfig(), "--port", String(await freePort()), "--demo-parties"]);
      try {
        await eventually(
          () => started.stderr().includes("channel login of a fourth party:") || started.stderr().includes("not started"),
          "the demo parties' lines",
        );
        expect(started.stderr()).toContain(
          "custom QR-code login: http://localhost:3005/custom-login (jQuery 4), http://localhost:3005/custom-login/legacy (jQuery 1.7)",
        );
        const page = await fetch("http://127.0.0.1:3005/custom-login");
        expect(page.status).toBe(200);
        // The page loads the script from this provider (its issuer moved with --port).
        expect(await page.text()).toContain(`${started.url!.replace("127.0.0.1", "localhost")}/Acme/CustomLogin/LoginJs?clientId=demo-web`);
        expect((await fetch("http://127.0.0.1:3006/")).status).toBe(200);
        expect((await fetch("http://127.0.0.1:4100/messages?to=E10001")).status).toBe(200);
      } finally {
        started.child.kill("SIGTERM");
        expect(await started.exited).toBe(0);
      }
      await expect(fetch("http://127.0.0.1:3005/custom-login")).rejects.toThrow();
    },
    PROCESS_TEST_MS,
  );
});

describe("portcullis start on a data directory already in use", () => {
  it(
    "refuses to start a second provider on the same embedded store, without touching the first one's records",
    async () => {
      const config = tempConfig();
      const first = await spawnStart(["--config", config, "--port", String(await freePort())]);
      const url = first.url!;
      try {
        const second = await runStart(["--config", config, "--port", String(await freePort())], {});
        expect(second.url).toBeUndefined();
        expect(second.code).toBe(1);
        expect(second.stderr()).toMatch(/in use by process \d+/);
        expect(second.stderr()).not.toMatch(/^\s+at /m);
        // The first provider's durable records are still the ones on disk: a revocation it makes survives its restart.
        const form = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";
        const issued = await fetch(`${url}/connect/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form,
        });
        const token = ((await issued.json()) as { access_token: string }).access_token;
        const auth = {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from("demo-service:demo-service-secret").toString("base64")}`,
        };
        expect((await fetch(`${url}/connect/revocation`, { method: "POST", headers: auth, body: `token=${token}` })).status).toBe(200);
        first.child.kill("SIGTERM");
        await first.exited;
        const restarted = await spawnStart(["--config", config, "--port", String(await freePort())]);
        const again = restarted.url!;
        const introspected = await fetch(`${again}/connect/introspect`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            authorization: `Basic ${Buffer.from("acme-api:acme-api-secret").toString("base64")}`,
          },
          body: `token=${token}`,
        });
        expect(await introspected.json()).toEqual({ active: false });
        restarted.child.kill("SIGTERM");
        await restarted.exited;
      } finally {
        first.child.kill("SIGKILL");
      }
    },
    PROCESS_TEST_MS,
  );
});
