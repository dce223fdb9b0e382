import { spawnSync } from "node:child_process";
import { BenchError } from "../bench-error.ts";
import { FlowError } from "../code-flow.ts";
import { onBenchExit } from "../child-processes.ts";
import { assertPinnable } from "../cpu-pinning.ts";
import { optionsOrExitCode } from "../options.ts";
import { startProvider } from "../provider-process.ts";
import { PROJECT_ROOT } from "../workers.ts";
import { checkOutBase } from "./base-tree.ts";
import { prepareLoad } from "./compare-loads.ts";
import { COMPARE_USAGE, parseCompareOptions } from "./compare-options.ts";
import { baseGoesFirst, pairRatios, quartiles, type PairRatios, type WindowFigures } from "./pair-stats.ts";

/**
 * `npm run bench:compare -- --base REV`: is the working tree faster or slower than REV? Separate bench
 * runs minutes apart differ by more than most changes make (docs/performance.md); two providers loaded in
 * turns, seconds apart, share the machine's state, so the ratio of each pair is steadier. No floors, no
 * targets: a yes/no on a change, not a measurement of the machine.
 */
const WARMUP_SECONDS = 3;

async function main(): Promise<number> {
  const parsed = optionsOrExitCode(() => parseCompareOptions(process.argv.slice(2)), COMPARE_USAGE);
  if ("exitCode" in parsed) return parsed.exitCode;
  const { options } = parsed;
  assertPinnable([options.serverCpu, options.loadCpu]);
  // This process generates the load: it goes to the load core, every thread of it.
  spawnSync("/usr/bin/taskset", ["-a", "-p", "-c", String(options.loadCpu), String(process.pid)], { stdio: "ignore" });

  const base = checkOutBase(PROJECT_ROOT, options.base);
  onBenchExit(() => base.remove());
  progress(`base ${base.commit.slice(0, 12)} checked out in ${base.root}; starting both providers`);
  // Node flags go to the working tree's provider only (--node-args), never to the base's; another node
  // binary (--base-node) to the base's only; --shared-node-args to both.
  const withNodeArgs = (args: string) => ({ ...process.env, BENCH_PROVIDER_NODE_ARGS: `${options.sharedNodeArgs} ${args}`.trim() });
  const baseEnv = options.baseNode === undefined ? withNodeArgs("") : { ...withNodeArgs(""), BENCH_PROVIDER_NODE: options.baseNode };
  const [baseProvider, workProvider] = await Promise.all([
    startProvider(options.serverCpu, baseEnv, base.root),
    startProvider(options.serverCpu, withNodeArgs(options.workNodeArgs)),
  ]);
  progress(`preparing the ${options.scenario} load (${options.loops} loops per provider)`);
  const baseLoad = await prepareLoad(options.scenario, baseProvider, options.loops);
  const workLoad = await prepareLoad(options.scenario, workProvider, options.loops);
  await baseLoad.window(WARMUP_SECONDS);
  await workLoad.window(WARMUP_SECONDS);

  const pairs: PairRatios[] = [];
  for (let pair = 0; pair < options.pairs; pair++) {
    let b: WindowFigures;
    let w: WindowFigures;
    if (baseGoesFirst(pair)) {
      b = await baseLoad.window(options.windowSeconds);
      w = await workLoad.window(options.windowSeconds);
    } else {
      w = await workLoad.window(options.windowSeconds);
      b = await baseLoad.window(options.windowSeconds);
    }
    pairs.push(pairRatios(b, w));
    progress(
      `pair ${pair + 1}/${options.pairs}: base ${b.rate.toFixed(0)}/s ${b.cpuUs.toFixed(0)} µs/op, working tree ${w.rate.toFixed(0)}/s ${w.cpuUs.toFixed(0)} µs/op`,
    );
  }
  const rate = quartiles(pairs.map((p) => p.rate));
  const cpu = quartiles(pairs.map((p) => p.cpuUs));
  const f = (q: { q1: number; median: number; q3: number }) => `${q.median.toFixed(3)} (quartiles ${q.q1.toFixed(3)}–${q.q3.toFixed(3)})`;
  process.stdout.write(
    `${options.scenario}: working tree ÷ base ${base.commit.slice(0, 12)}, ${options.pairs} pairs of ${options.windowSeconds} s windows\n` +
      `  rate          ${f(rate)}   above 1: the working tree is faster\n` +
      `  CPU per op    ${f(cpu)}   below 1: the working tree is cheaper\n`,
  );
  await Promise.all([baseProvider.stop(), workProvider.stop()]);
  return 0;
}

function progress(message: string): void {
  process.stderr.write(`[compare] ${message}\n`);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench:compare failed: ${error instanceof BenchError || error instanceof FlowError ? error.message : ((error as Error).stack ?? String(error))}\n`,
    );
    process.exit(1);
  },
);
