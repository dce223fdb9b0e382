/**
 * docs/deploy's systemd unit and Dockerfile cannot be run here (no Docker engine, no systemd as PID 1),
 * so what they refer to is checked instead, so that they cannot rot: the files and commands they name
 * exist, the Node.js major matches ours, they run as a non-root user, the unit is valid for
 * systemd-analyze, and the image's health check, run as written, tells a serving provider from none.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portcullis } from "../support/run-cli.ts";
import { freePort } from "../support/services.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const DEPLOY = resolve(ROOT, "docs/deploy");
const dockerfile = readFileSync(resolve(DEPLOY, "Dockerfile"), "utf8");
const dockerignore = readFileSync(resolve(DEPLOY, "Dockerfile.dockerignore"), "utf8");
const unit = readFileSync(resolve(DEPLOY, "portcullis.service"), "utf8");
const run = promisify(execFile);

/** Dockerfile instructions with their continuation lines joined. */
const instructions = dockerfile
  .replace(/\\\n\s*/g, "")
  .split("\n")
  .filter((l) => /^[A-Z]+ /.test(l));
const instruction = (name: string) => instructions.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());
const unitValue = (key: string) =>
  unit
    .split("\n")
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));

describe("docs/deploy/Dockerfile", () => {
  it("copies only files that exist and that its .dockerignore lets into the build context", () => {
    const sources = instruction("COPY")
      .filter((c) => !c.startsWith("--from"))
      .flatMap((c) => c.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(5);
    const allowed = dockerignore
      .split("\n")
      .filter((l) => l.startsWith("!"))
      .map((l) => l.slice(1).replace(/\/$/, ""));
    for (const source of sources) {
      expect(existsSync(resolve(ROOT, source)), source).toBe(true);
      expect(allowed, source).toContain(source);
    }
    // Everything the provider reads at run time besides its node_modules: the folders src/ resolves from its own location.
    for (const folder of ["bin", "src", "flows", "views", "schemas"]) expect(sources).toContain(folder);
  });

  it("builds on the project's primary Node.js line (the first .ci/run tests), and runs as a non-root user", () => {
    const primary = /for major in (\d+)/.exec(readFileSync(resolve(ROOT, ".ci/run"), "utf8"))![1];
    const bases = instruction("FROM").map((f) => /^node:(\d+)/.exec(f)?.[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const major of bases) expect(major).toBe(primary);
    expect(instruction("USER")).toEqual(["node"]);
  });

  it("starts the real CLI's start command", async () => {
    expect(instruction("ENTRYPOINT")).toEqual(['["node", "bin/portcullis.js"]']);
    expect(existsSync(resolve(ROOT, "bin/portcullis.js"))).toBe(true);
    const [command] = JSON.parse(instruction("CMD").at(-1)!) as string[];
    expect(command).toBe("start");
    expect((await portcullis([command!, "--help"])).code).toBe(0);
  });

  describe("HEALTHCHECK, run as written", () => {
    let p: TestProvider;
    beforeAll(async () => {
      p = await startTestProvider();
    });
    afterAll(() => p?.close());
    const check = JSON.parse(/CMD (\[.*\])$/.exec(instruction("HEALTHCHECK")[0]!)![1]!) as string[];
    const healthcheck = (port: number) =>
      run(process.execPath, check.slice(1), { env: { ...process.env, PORT: String(port) } }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );

    it("asks /healthz and passes while the provider serves", async () => {
      expect(check[0]).toBe("node");
      expect(check.join(" ")).toContain("/healthz");
      expect(await healthcheck(Number(new URL(p.url).port))).toBe(0);
    });

    it("fails where nothing serves", async () => {
      expect(await healthcheck(await freePort())).toBe(1);
    });
  });
});

describe("docs/deploy/portcullis.service", () => {
  it("runs the real CLI's check-config and start as an unprivileged user, reloads on SIGHUP and restarts on failure", async () => {
    expect(unitValue("User")).toEqual(["portcullis"]);
    expect(unitValue("ExecReload")).toEqual(["/bin/kill -HUP $MAINPID"]);
    expect(unitValue("Restart")).toEqual(["on-failure"]);
    expect(unitValue("TimeoutStopSec")).toHaveLength(1);
    expect(unitValue("NoNewPrivileges")).toEqual(["yes"]);
    const commands = [...unitValue("ExecStartPre"), ...unitValue("ExecStart")].map((line) => line.split(" "));
    expect(commands.map((c) => c.slice(1).join(" "))).toEqual([
      "/opt/portcullis/bin/portcullis.js check-config",
      "/opt/portcullis/bin/portcullis.js start",
    ]);
    for (const [, script, command] of commands) {
      expect(existsSync(resolve(ROOT, script!.replace("/opt/portcullis/", "")))).toBe(true);
      expect((await portcullis([command!, "--help"])).code, command).toBe(0);
    }
  });

  const analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((path) => existsSync(path));
  it.skipIf(!analyze)("is a valid unit for systemd-analyze verify", async () => {
    const { stderr } = await run(analyze!, ["verify", resolve(DEPLOY, "portcullis.service")]).catch((error: { stderr: string }) => ({
      stderr: error.stderr,
    }));
    // The unit names the target's /usr/bin/node; a machine without one (CI installs Node elsewhere) says only that.
    const issues = stderr.split("\n").filter((line) => line !== "" && !line.includes("Command /usr/bin/node is not executable"));
    expect(issues).toEqual([]);
  });
});

describe("docs/deployment.md", () => {
  it("links the unit and the Dockerfile", () => {
    const doc = readFileSync(resolve(ROOT, "docs/deployment.md"), "utf8");
    for (const file of ["deploy/portcullis.service", "deploy/Dockerfile"]) expect(doc).toContain(`](${file})`);
  });
});
