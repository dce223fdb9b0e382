import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/start-process.ts";
import { send } from "../support/test-provider.ts";

/** What `npm run channel-service` runs. */
const RUNNER = fileURLToPath(new URL("../../bin/tsx-run.js", import.meta.url));
const MAIN = fileURLToPath(new URL("../../src/channel-service/main.ts", import.meta.url));
const DEMO_CHANNELS = fileURLToPath(new URL("../../config/channels.yaml", import.meta.url));

function run(args: string[]) {
  const child = spawn(process.execPath, [RUNNER, MAIN, ...args]);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe("npm run channel-service", () => {
  it("serves until SIGTERM, then exits 0", async () => {
    const service = run(["--issuer", "http://127.0.0.1:9", "--channels", DEMO_CHANNELS, "--port", "0"]);
    await eventually(() => /listening on (\S+),/.test(service.stdout()), "the listening line", 60_000);
    const url = /listening on (\S+),/.exec(service.stdout())![1]!;
    expect(service.stdout()).toBe(`channel-service: listening on ${url}, accepting access tokens of http://127.0.0.1:9\n`);
    const res = await send(`${url}/mp_login/channelinfo`, { method: "POST" });
    expect(res.json).toEqual({ code: 401, msg: "a Bearer access token is required" });
    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  });

  it("refuses a channel file that breaks the schema with one line and exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "channel-service-"));
    writeFileSync(join(dir, "channels.yaml"), "channels:\n  - id: a\n    name: A\n    icon: javascript:alert(1)\n    members: []\n");
    const service = run(["--issuer", "http://127.0.0.1:9", "--channels", join(dir, "channels.yaml"), "--port", "0"]);
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe(`channel-service: ${join(dir, "channels.yaml")}: channels[0].icon: must match ^https?:// — the \`chnl_icon\` claim: the http(s) URL of the channel's icon (relying apps show it, so no other scheme)\n`);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to start without --issuer, and on a busy port", async () => {
    const noIssuer = run(["--port", "0"]);
    expect(await noIssuer.exited).toBe(1);
    expect(noIssuer.stderr()).toMatch(/^channel-service: usage: npm run channel-service -- --issuer URL .*\n$/);

    const busy = createServer().listen(0, "127.0.0.1");
    await once(busy, "listening");
    const port = (busy.address() as { port: number }).port;
    const service = run(["--issuer", "http://127.0.0.1:9", "--channels", DEMO_CHANNELS, "--port", String(port)]);
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe("channel-service: the port is in use\n");
    busy.close();
  });
});
