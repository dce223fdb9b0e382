/** The bench's options (bench/options.ts): rounds, ceilings, the peer, the LDAP directory, workers. */
import { describe, expect, it } from "vitest";
import { parseOptions, UsageError, type BenchOptions } from "../../bench/options.ts";

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseOptions(argv, env) as BenchOptions;

describe("parseOptions", () => {
  it("measures 3 rounds of 3 s windows with the ceilings by default", () => {
    expect(parse([])).toMatchObject({ rounds: 3, durationSeconds: 3, warmupSeconds: 2, ceilings: true });
  });

  it("takes the rounds from --rounds, or else from BENCH_ROUNDS", () => {
    expect(parse(["--rounds", "5"], { BENCH_ROUNDS: "2" }).rounds).toBe(5);
    expect(parse([], { BENCH_ROUNDS: "2" }).rounds).toBe(2);
  });

  it("refuses a round count that is not a whole number of at least 1", () => {
    expect(() => parse(["--rounds", "0"])).toThrow(UsageError);
    expect(() => parse(["--rounds", "1.5"])).toThrow(UsageError);
  });

  it("turns the ceilings off with --no-ceilings or BENCH_CEILINGS=0, and --ceilings wins over the environment", () => {
    expect(parse(["--no-ceilings"]).ceilings).toBe(false);
    expect(parse([], { BENCH_CEILINGS: "0" }).ceilings).toBe(false);
    expect(parse(["--ceilings"], { BENCH_CEILINGS: "0" }).ceilings).toBe(true);
  });

  it("measures the peer only with --peer or BENCH_PEER=1", () => {
    expect(parse([]).peer).toBe(false);
    expect(parse(["--peer"]).peer).toBe(true);
    expect(parse([], { BENCH_PEER: "1" }).peer).toBe(true);
    expect(parse(["--no-peer"], { BENCH_PEER: "1" }).peer).toBe(false);
  });
});

describe("parseOptions --ldap", () => {
  it("measures the LDAP directory by default, its own cost included, and turns both off with --no-ldap or BENCH_LDAP=0", () => {
    expect(parse([])).toMatchObject({ ldap: true });
    expect(parse([]).only).toContain("directory");
    for (const options of [parse(["--no-ldap"]), parse([], { BENCH_LDAP: "0" })]) {
      expect(options.ldap).toBe(false);
      expect(options.only).not.toContain("directory");
      expect(options.only).toContain("code_flow_login");
    }
    expect(parse(["--ldap"], { BENCH_LDAP: "0" }).ldap).toBe(true);
  });

  it("refuses to measure the directory's own cost without the directory", () => {
    expect(parse(["--only", "code_flow_login,directory"]).only).toEqual(["code_flow_login", "directory"]);
    expect(() => parse(["--no-ldap", "--only", "directory"])).toThrow(UsageError);
  });
});

describe("parseOptions --workers", () => {
  it("measures worker scaling only when asked, with at least 2 workers", () => {
    expect(parse([]).workers).toBeUndefined();
    expect(parse(["--workers", "2"]).workers).toBe(2);
    expect(parse([], { BENCH_WORKERS: "4" }).workers).toBe(4);
    expect(() => parse(["--workers", "1"])).toThrow(UsageError);
    expect(() => parse(["--workers", "two"])).toThrow(UsageError);
  });
});
