import { sampleCpu } from "./process-cpu.ts";
import type { LoadResult } from "./load-protocol.ts";

/**
 * A long window cut into slices (10 s unless the job says otherwise): completed units and the server's CPU time per unit in
 * each, so that a slowdown that grows with the run (a record that grows with every refresh, a store
 * that fills up) shows as a trend inside one window rather than hiding in its average.
 */
export type Timeline = NonNullable<LoadResult["timeline"]>;

const SLICE_SECONDS = 10;

/**
 * Samples the server at every slice boundary from now on; `units()` is the count of completed units so far.
 * Every unit completed before stop() is in exactly one slice, so the slices add up to the window's count.
 */
export function startTimeline(serverPid: number, units: () => number, sliceSeconds = SLICE_SECONDS): { stop(): Timeline } {
  const slices: Array<{ seconds: number; units: number; cpuSeconds: number }> = [];
  const sample = () => ({ at: performance.now(), units: units(), cpu: sampleCpu(serverPid).cpuSeconds });
  let last = sample();
  const take = (): void => {
    const now = sample();
    slices.push({ seconds: (now.at - last.at) / 1000, units: now.units - last.units, cpuSeconds: now.cpu - last.cpu });
    last = now;
  };
  const timer = setInterval(take, sliceSeconds * 1000);
  return {
    stop() {
      clearInterval(timer);
      const tailIsShort = performance.now() - last.at < (sliceSeconds * 1000) / 2;
      take();
      // A tail shorter than half a slice says little on its own (and is often a few milliseconds between the
      // last tick and the end of the window): it joins the slice before it instead of being dropped.
      if (tailIsShort && slices.length >= 2) {
        const tail = slices.pop()!;
        const previous = slices.at(-1)!;
        previous.seconds += tail.seconds;
        previous.units += tail.units;
        previous.cpuSeconds += tail.cpuSeconds;
      }
      return slices.map((s) => ({
        seconds: s.seconds,
        units: s.units,
        serverCpuUsPerUnit: s.units === 0 ? 0 : (s.cpuSeconds / s.units) * 1e6,
      }));
    },
  };
}

/** One line for the report: each slice's units per second and server CPU per unit; undefined for a window of one slice. */
export function formatTimeline(timeline: Timeline | undefined, unit: string): string | undefined {
  if (timeline === undefined || timeline.length < 2) return undefined;
  const cells = timeline.map((s) => `${Math.round(s.units / s.seconds)}/s ${Math.round(s.serverCpuUsPerUnit).toLocaleString("en-US")} µs`);
  return `every ${Math.round(timeline[0]!.seconds)} s (${unit}s/s, server CPU µs/${unit}): ${cells.join(" · ")}`;
}
