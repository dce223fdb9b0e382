import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { VERIFIER } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { portcullis } from "../support/run-cli.ts";
import { freePort } from "../support/services.ts";
import { slapdAvailable } from "../support/slapd.ts";
import { spawnStart } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

/**
 * `portcullis start --demo-directory` (`npm run demo:ldap`) as an operator runs it: the real process starts
 * the bundled slapd with the demo's people, says where it is and who can log in, serves a person only the
 * directory knows, and takes slapd down with it.
 */
const haveSlapd = slapdAvailable("demo directory start suite");
/** The process starts slapd and the provider, which loads the sources: generous on a busy machine. */
const PROCESS_TEST_MS = 120_000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempConfig(): string {
  const data = mkdtempSync(join(tmpdir(), "portcullis-start-"));
  const dir = copyConfig({ "provider.yaml": { data_dir: data } });
  dirs.push(data, dir);
  return dir;
}

/** Whether something accepts a TCP connection on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe.skipIf(!haveSlapd)("portcullis start --demo-directory", () => {
  it(
    "serves the directory's people: dana, whom users.yaml does not know, logs in with her password and gets her claims; SIGTERM stops slapd too",
    async () => {
      const started = await spawnStart(["--config", tempConfig(), "--port", String(await freePort()), "--demo-directory"]);
      let slapdPort: number | undefined;
      try {
        const url = started.url!;
        expect(url, started.stderr()).toBeDefined();
        const slapdUrl = /OpenLDAP on (ldap:\/\/127\.0\.0\.1:(\d+)),/.exec(started.stderr());
        expect(slapdUrl, started.stderr()).not.toBeNull();
        slapdPort = Number(slapdUrl![2]);
        expect(started.stderr()).toContain("dana / dana-password");
        expect(started.stderr()).toContain("carol / carol-password is a disabled account");
        expect(await accepts(slapdPort)).toBe(true);

        const challenge = createHash("sha256").update(VERIFIER).digest("base64url");
        const request = authorizeUrl(url, { scope: "openid profile email", code_challenge: challenge, code_challenge_method: "S256" });
        const code = responseParams(await loginWithPassword(new RawBrowser(), request, "dana", "dana-password")).get("code")!;
        const token = await fetch(`${url}/connect/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            redirect_uri: "http://localhost:3001/callback",
            client_id: "demo-web",
            client_secret: "demo-web-secret",
            code_verifier: VERIFIER,
          }),
        });
        expect(token.status).toBe(200);
        const tokens = (await token.json()) as { id_token: string; access_token: string };
        expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: "E10004", amr: ["password"] });
        const userinfo = await fetch(`${url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(await userinfo.json()).toMatchObject({
          sub: "E10004",
          name: "Dana Okafor",
          job_title: "Audit Lead",
          birthdate: "1988/02/29",
          hiredate: "2019-01-07",
          email: "dana@example.com",
          role: expect.arrayContaining(["employee", "auditor"]),
        });
      } finally {
        started.child.kill("SIGTERM");
        expect(await started.exited).toBe(0);
      }
      expect(await accepts(slapdPort!)).toBe(false);
    },
    PROCESS_TEST_MS,
  );
});

describe("portcullis start --demo-directory without slapd", () => {
  it("exits 1 with one line naming the packages to install, never a stack", async () => {
    const run = await portcullis(["start", "--config", tempConfig(), "--port", String(await freePort()), "--demo-directory"], {
      env: { PORTCULLIS_SLAPD: join(tmpdir(), "no-such-slapd") },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "portcullis start: cannot start the demo directory: slapd is not installed (apt-get install slapd ldap-utils)\n",
    );
  });
});
