import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.ts";

/** runCli in this process (stdin is never read for help), its output collected. */
async function run(argv: string[]) {
  const out = { stdout: "", stderr: "" };
  const sink = (key: keyof typeof out) => {
    const stream = new PassThrough();
    stream.on("data", (chunk) => (out[key] += chunk));
    return stream;
  };
  const code = await runCli(argv, { stdin: process.stdin, stdout: sink("stdout"), stderr: sink("stderr"), env: {} });
  return { code, ...out };
}

describe("the command table", () => {
  it("loads each command the overview lists under the name it lists", async () => {
    const overview = await run(["--help"]);
    expect(overview.code).toBe(0);
    const names = [...overview.stdout.matchAll(/^ {2}(\S+) {2,}\S/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(["start", "reload", "check-config", "keys", "audit", "policy"]));
    for (const name of names) {
      const help = await run([name, "--help"]);
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(new RegExp(`^usage: portcullis ${name}\\b`));
    }
  });
});
