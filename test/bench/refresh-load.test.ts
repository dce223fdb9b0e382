/**
 * The refresh load (bench/workers/flow-generator.ts, flow "refresh") against the refresh ceiling: every
 * refresh presents the token the last one returned. Presenting a rotated one again would be reuse, which
 * revokes the family, so a generator that lost track of its tokens shows as failed flows here.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stop } from "../../bench/child-processes.ts";
import type { FlowJob, LoadResult } from "../../bench/load-protocol.ts";
import { firstJsonLine, PROJECT_ROOT } from "../../bench/workers.ts";

// Not the bench's spawnTracked: that installs the bench's signal handlers, which are not the test runner's.
const worker = (script: string, args: string[] = []) =>
  spawn(process.execPath, [`bench/workers/${script}`, ...args], { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] });

describe("the refresh load", () => {
  let ceiling: ReturnType<typeof worker>;
  let baseUrl: string;
  beforeAll(async () => {
    ceiling = worker("ceiling-refresh.ts");
    baseUrl = `http://127.0.0.1:${(await firstJsonLine<{ port: number }>(ceiling, "refresh ceiling")).port}`;
  });
  afterAll(() => stop(ceiling));

  it("loops refreshes on rotated tokens for a whole window without a failure, and shows the window slice by slice", async () => {
    // Two slices of a second (bench/timeline.ts): the bench's own are 10 s, but the window runs the
    // generator and the ceiling flat out, which the rest of the suite would wait for.
    const job: FlowJob = {
      baseUrl,
      flow: "refresh",
      sessionFrom: "bench-endpoint",
      users: 3,
      warmupSeconds: 1,
      durationSeconds: 2,
      sliceSeconds: 1,
      serverPid: ceiling.pid!,
      serverCpu: 0,
    };
    const generator = worker("flow-generator.ts", [JSON.stringify(job)]);
    const result = await firstJsonLine<LoadResult>(generator, "flow generator");
    expect({ unexpected: result.non2xx, errors: result.errors, timeouts: result.timeouts, warmupFailures: result.warmupFailures }).toEqual({
      unexpected: 0,
      errors: 0,
      timeouts: 0,
      warmupFailures: 0,
    });
    expect(result.ok).toBeGreaterThan(0);
    expect(Object.keys(result.statusCodes)).toEqual(["refresh 200"]);
    expect(Object.keys(result.steps ?? {})).toEqual(["refresh"]);
    expect(result.timeline).toHaveLength(2);
    expect(result.timeline!.reduce((sum, slice) => sum + slice.units, 0)).toBe(result.ok);
    for (const slice of result.timeline!) expect(slice.serverCpuUsPerUnit).toBeGreaterThan(0);
  }, 120_000);
});
