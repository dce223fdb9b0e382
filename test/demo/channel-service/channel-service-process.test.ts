import { createServer } from "node:net";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { eventually } from "../../support/start-process.ts";
import { runScript } from "../../support/run-script.ts";
import { send } from "../../support/test-provider.ts";

const DEMO_CHANNELS = fileURLToPath(new URL("../../../config/channels.yaml", import.meta.url));

/** What `npm run channel-service` runs. */
const run = (args: string[]) => runScript("src/demo/channel-service/main.ts", args);

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
    expect(service.stderr()).toBe(
      `channel-service: ${join(dir, "channels.yaml")}: channels[0].icon: must match ^https?:// — the \`chnl_icon\` claim: the http(s) URL of the channel's icon (relying apps show it, so no other scheme)\n`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a channel file that lists no channels (a provider's file switched to the http directory), with one line and exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "channel-service-"));
    const file = join(dir, "channels.yaml");
    writeFileSync(file, "directory: { kind: http, url: http://127.0.0.1:4100, client_id: demo-channel-directory }\n");
    const service = run(["--issuer", "http://127.0.0.1:9", "--channels", file, "--port", "0"]);
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe(
      `channel-service: ${file}: lists no channels (the service serves the channels of this file: give it its own list, not a provider's channels.yaml with directory.kind http)\n`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a channel file without a login_data key, or with one in plain text, with one line that shows no key, and exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "channel-service-"));
    const file = join(dir, "channels.yaml");
    const channels = "channels:\n  - { id: a, name: A, icon: https://a.example/a.png, members: [{ sub: E10001, role: owner }] }\n";
    writeFileSync(file, channels);
    const keyless = run(["--issuer", "http://127.0.0.1:9", "--channels", file, "--port", "0"]);
    expect(await keyless.exited).toBe(1);
    expect(keyless.stderr()).toBe(
      `channel-service: ${file}: login_data.signing_key is required: the selector page seals the data it writes with it and channelinfo accepts only data sealed so (give it as \${env:NAME} or \${file:PATH})\n`,
    );

    writeFileSync(file, `login_data: { signing_key: plain-text-secret-of-more-than-32-characters }\n${channels}`);
    const plain = run(["--issuer", "http://127.0.0.1:9", "--channels", file, "--port", "0"]);
    expect(await plain.exited).toBe(1);
    expect(plain.stderr()).toBe(
      `channel-service: ${file}: login_data.signing_key: is a secret: give it as \${env:NAME} or \${file:PATH}, not in plain text\n`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses an --issuer that is not an http(s) URL, a port above 65535, and a busy port", async () => {
    for (const args of [
      ["--issuer", "localhost:3000", "--port", "0"],
      ["--port", "70000"],
    ]) {
      const bad = run(args);
      expect(await bad.exited).toBe(1);
      expect(bad.stderr()).toMatch(/^channel-service: usage: npm run channel-service -- \[--issuer http:\/\/localhost:3000\] .*\n$/);
    }

    const busy = createServer().listen(0, "127.0.0.1");
    await once(busy, "listening");
    const port = (busy.address() as { port: number }).port;
    const service = run(["--issuer", "http://127.0.0.1:9", "--channels", DEMO_CHANNELS, "--port", String(port)]);
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe("channel-service: the port is in use\n");
    busy.close();
  });
});
