import { parseArgs } from "node:util";
import { integer, number, UsageError } from "../options.ts";
import { COMPARED_SCENARIOS, type ComparedScenario } from "./compare-loads.ts";

/** What one `npm run bench:compare` does. */
export interface CompareOptions {
  /** The revision the working tree is compared with (anything `git rev-parse` takes). */
  base: string;
  scenario: ComparedScenario;
  /** Pairs of windows (one per tree, back to back). */
  pairs: number;
  /** Seconds recorded per window. */
  windowSeconds: number;
  /** Virtual users (code_flow_sso) or connections (client_credentials), as many as `npm run bench` uses. */
  loops: number;
  /** Extra node flags for the working tree's provider only: with `--base HEAD`, compares runtime flags. */
  workNodeArgs: string;
  /** Extra node flags for both providers, e.g. `--import` of a profiling aid that takes the signature out. */
  sharedNodeArgs: string;
  /** Another node binary for the base's provider (default: the one running the comparison). */
  baseNode: string | undefined;
  serverCpu: number;
  loadCpu: number;
}

export const COMPARE_USAGE = `usage: npm run bench:compare -- --base REV [options]

Runs the provider of the working tree and the provider of REV side by side (both pinned to the server
core) and loads them in turns, one short window each, pair after pair: per pair the working tree's
rate and CPU per operation are divided by the base's, and the report gives the median and quartiles.

  --base REV          the revision to compare with: a commit, tag, branch or e.g. HEAD~1 (required)
  --only NAME         ${COMPARED_SCENARIOS.join(" or ")} (default code_flow_sso)
  --pairs N           pairs of windows (default 16)
  --window S          seconds recorded per window (default 1.5)
  --loops N           virtual users or connections (default 4, as npm run bench)
  --node-args FLAGS   extra node flags for the working tree's provider only; with --base HEAD this
                      compares runtime flags, e.g. --node-args=--single-threaded-gc
  --shared-node-args FLAGS
                      extra node flags for both providers, e.g. --import=<a module> that replaces
                      the signature with a constant, to compare everything but the RSA work
  --base-node PATH    the node binary for the base's provider; with the working tree on this node,
                      compares Node.js versions (pick a base revision that runs on PATH's version)
  --server-cpu N      core for both providers (default 0)
  --load-cpu N        core for this process, which generates the load (default 1)
  -h, --help          this text
`;

export function parseCompareOptions(argv: readonly string[]): CompareOptions | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      base: { type: "string" },
      only: { type: "string" },
      pairs: { type: "string" },
      window: { type: "string" },
      loops: { type: "string" },
      "node-args": { type: "string" },
      "shared-node-args": { type: "string" },
      "base-node": { type: "string" },
      "server-cpu": { type: "string" },
      "load-cpu": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  if (!values.base) throw new UsageError("--base is required: the revision to compare the working tree with");
  const scenario = values.only ?? "code_flow_sso";
  if (!(COMPARED_SCENARIOS as readonly string[]).includes(scenario))
    throw new UsageError(`--only: "${scenario}" cannot be compared (only ${COMPARED_SCENARIOS.join(", ")})`);
  const options: CompareOptions = {
    base: values.base,
    scenario: scenario as ComparedScenario,
    pairs: integer("--pairs", values.pairs, 16, 2),
    windowSeconds: number("--window", values.window, 1.5, 0.5),
    loops: integer("--loops", values.loops, 4, 1),
    workNodeArgs: values["node-args"] ?? "",
    sharedNodeArgs: values["shared-node-args"] ?? "",
    baseNode: values["base-node"],
    serverCpu: integer("--server-cpu", values["server-cpu"], 0, 0),
    loadCpu: integer("--load-cpu", values["load-cpu"], 1, 0),
  };
  if (options.serverCpu === options.loadCpu) throw new UsageError("--server-cpu and --load-cpu must be different cores");
  if (options.scenario === "code_flow_sso" && options.loops > 10)
    throw new UsageError(
      "--loops must be at most 10 for code_flow_sso: more logins in flight per demo account than its password attempt limit would be refused",
    );
  return options;
}
