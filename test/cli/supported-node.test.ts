import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { checkNodeVersion } from "../../bin/supported-node.js";

const ENTRY = resolve(import.meta.dirname, "../../bin/portcullis.js");

describe("the Node.js versions portcullis runs on", () => {
  it.each(["24.0.0", "24.21.0", "22.18.0", "22.23.3", "v24.1.0"])("runs on %s", (version) => {
    expect(checkNodeVersion(version)).toEqual({ verdict: "run" });
  });

  it.each([
    ["20.20.2", /does not run on Node\.js 20\.20\.2: use Node\.js 24 or 22 LTS/],
    ["18.19.0", /does not run on Node\.js 18\.19\.0/],
    ["23.11.0", /does not run on Node\.js 23\.11\.0/],
    // 22.12–22.17 strip types only with a flag: the sources would not load.
    ["22.17.1", /needs Node\.js 22\.18\.0 or later on the 22\.x line; this is 22\.17\.1/],
    ["22.12.0", /needs Node\.js 22\.18\.0 or later on the 22\.x line; this is 22\.12\.0/],
  ])("refuses %s with one line that says what to use", (version, message) => {
    const answer = checkNodeVersion(version);
    expect(answer.verdict).toBe("refuse");
    expect(answer.verdict !== "run" && answer.message).toMatch(message);
    expect(answer.verdict !== "run" && answer.message).not.toContain("\n");
  });

  it("warns, but runs, on a newer line than the ones tested", () => {
    expect(checkNodeVersion("26.1.0")).toEqual({
      verdict: "warn",
      message: expect.stringMatching(/tested on Node\.js 24 or 22 LTS; 26\.1\.0 is newer and untested/),
    });
  });

  it("says nothing on the runtime running this suite, and the CLI starts", async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [ENTRY, "--help"]);
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^usage: portcullis/);
  });
});
