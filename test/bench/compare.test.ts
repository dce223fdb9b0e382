/** npm run bench:compare (bench/compare/): its options, its pair statistics, and the base checkout. */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { BenchError } from "../../bench/bench-error.ts";
import { checkOutBase, type BaseTree } from "../../bench/compare/base-tree.ts";
import { parseCompareOptions, type CompareOptions } from "../../bench/compare/compare-options.ts";
import { baseGoesFirst, pairRatios, quartiles } from "../../bench/compare/pair-stats.ts";
import { UsageError } from "../../bench/options.ts";
import { PROJECT_ROOT } from "../../bench/workers.ts";

const parse = (argv: string[]) => parseCompareOptions(argv) as CompareOptions;

describe("parseCompareOptions", () => {
  it("compares code_flow_sso in 16 pairs of 1.5 s windows with 4 loops by default", () => {
    expect(parse(["--base", "HEAD~1"])).toEqual({
      base: "HEAD~1",
      scenario: "code_flow_sso",
      pairs: 16,
      windowSeconds: 1.5,
      loops: 4,
      workNodeArgs: "",
      sharedNodeArgs: "",
      baseNode: undefined,
      serverCpu: 0,
      loadCpu: 1,
    });
  });

  it("passes --shared-node-args to both providers' flags", () => {
    expect(parse(["--base", "HEAD", "--shared-node-args=--import=/tmp/no-signature.mjs"]).sharedNodeArgs).toBe(
      "--import=/tmp/no-signature.mjs",
    );
  });

  it("passes extra node flags to the working tree's provider only", () => {
    expect(parse(["--base", "HEAD", "--node-args=--single-threaded-gc --max-semi-space-size=4"]).workNodeArgs).toBe(
      "--single-threaded-gc --max-semi-space-size=4",
    );
  });

  it("runs the base's provider on another node binary with --base-node, to compare Node.js versions", () => {
    expect(parse(["--base", "HEAD~2", "--base-node", "/opt/node20/bin/node"]).baseNode).toBe("/opt/node20/bin/node");
    expect(parse(["--base", "HEAD~2"]).baseNode).toBeUndefined();
  });

  it("needs a base", () => {
    expect(() => parse([])).toThrow(UsageError);
  });

  it("compares only the scenarios it can load", () => {
    expect(parse(["--base", "x", "--only", "client_credentials"]).scenario).toBe("client_credentials");
    expect(() => parse(["--base", "x", "--only", "userinfo"])).toThrow(/cannot be compared/);
  });

  it("refuses one pair, one core for both sides, and more SSO users than the demo accounts allow in flight", () => {
    expect(() => parse(["--base", "x", "--pairs", "1"])).toThrow(UsageError);
    expect(() => parse(["--base", "x", "--load-cpu", "0"])).toThrow(/different cores/);
    expect(() => parse(["--base", "x", "--loops", "11"])).toThrow(/at most 10/);
    expect(parse(["--base", "x", "--only", "client_credentials", "--loops", "11"]).loops).toBe(11);
  });
});

describe("pair statistics", () => {
  it("divides the working tree's figures by the base's", () => {
    expect(pairRatios({ rate: 1000, cpuUs: 800 }, { rate: 1100, cpuUs: 720 })).toEqual({ rate: 1.1, cpuUs: 0.9 });
  });

  it("gives the median and the quartiles, whatever the order", () => {
    expect(quartiles([5, 1, 3, 2, 4])).toEqual({ q1: 2, median: 3, q3: 4 });
    expect(quartiles([4, 1, 3, 2]).median).toBe(2.5);
    expect(quartiles([0.97])).toEqual({ q1: 0.97, median: 0.97, q3: 0.97 });
  });

  it("refuses no values rather than inventing one", () => {
    expect(() => quartiles([])).toThrow(RangeError);
  });

  it("alternates which tree goes first, so a drift within a pair favours neither", () => {
    expect([0, 1, 2, 3].map(baseGoesFirst)).toEqual([true, false, true, false]);
  });
});

describe("checkOutBase", () => {
  let tree: BaseTree | undefined;
  afterEach(() => tree?.remove());

  it("checks the revision out in a worktree of its own, sharing node_modules, and removes it again", () => {
    tree = checkOutBase(PROJECT_ROOT, "HEAD");
    const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: PROJECT_ROOT, encoding: "utf8" }).stdout.trim();
    expect(tree.commit).toBe(head);
    expect(JSON.parse(readFileSync(`${tree.root}/package.json`, "utf8")).name).toBe("portcullis");
    expect(realpathSync(`${tree.root}/node_modules`)).toBe(realpathSync(`${PROJECT_ROOT}/node_modules`));
    const listed = () => spawnSync("git", ["worktree", "list", "--porcelain"], { cwd: PROJECT_ROOT, encoding: "utf8" }).stdout;
    expect(listed()).toContain(tree.root);
    tree.remove();
    expect(existsSync(tree.root)).toBe(false);
    expect(listed()).not.toContain(tree.root);
  });

  it("refuses a revision that is not a commit", () => {
    expect(() => checkOutBase(PROJECT_ROOT, "no-such-revision-anywhere")).toThrow(BenchError);
  });
});
