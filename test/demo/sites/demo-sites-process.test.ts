import { createServer } from "node:net";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { runScript } from "../../support/run-script.ts";
import { eventually } from "../../support/start-process.ts";
import { send } from "../../support/test-provider.ts";

/** What `npm run demo-sites` runs. */
const run = (args: string[]) => runScript("src/demo/sites/main.ts", args);

describe("npm run demo-sites", () => {
  it("serves both sites until SIGTERM, then exits 0", async () => {
    const sites = run([
      "--provider",
      "http://127.0.0.1:9",
      "--channel-service",
      "http://127.0.0.1:9",
      "--demo-web-port",
      "0",
      "--fourth-party-port",
      "0",
    ]);
    await eventually(() => sites.stdout().includes("\n"), "the listening line", 60_000);
    const [, web, fourth] =
      /^demo-sites: (\S+)\/custom-login \(and \/custom-login\/legacy\), (\S+)\/ — provider http:\/\/127\.0\.0\.1:9\n$/.exec(
        sites.stdout(),
      ) ?? [];
    expect((await send(`${web}/custom-login`)).status).toBe(200);
    expect((await send(`${fourth}/`)).text).toContain("Fourth-party site");
    sites.child.kill("SIGTERM");
    expect(await sites.exited).toBe(0);
  });

  it("refuses a busy port with one line and exit 1", async () => {
    const busy = createServer().listen(0, "127.0.0.1");
    await once(busy, "listening");
    const port = (busy.address() as { port: number }).port;
    const sites = run(["--demo-web-port", "0", "--fourth-party-port", String(port)]);
    expect(await sites.exited).toBe(1);
    expect(sites.stderr()).toBe("demo-sites: a port is in use\n");
    busy.close();
  });
});
