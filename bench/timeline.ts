import { sampleCpu } from "./process-cpu.ts";
import type { LoadResult } from "./load-protocol.ts";

/**
 * A long window cut into slices of SLICE_SECONDS: completed units and the server's CPU time per unit in
 * each, so that a slowdown that grows with the run (a record that grows with every refresh, a store
 * that fills up) shows as a trend inside one window rather than hiding in its average.
 */
export type Timeline = NonNullable<LoadResult["timeline"]>;

const SLICE_SECONDS = 10;

/** Samples the server at every slice boundary from now on; `units()` is the count of completed units so far. */
export function startTimeline(serverPid: number, units: () => number): { stop(): Timeline } {
  const slices: Timeline = [];
  let last = { at: performance.now(), units: units(), cpu: sampleCpu(serverPid).cpuSeconds };
  const take = () => {
    const now = { at: performance.now(), units: units(), cpu: sampleCpu(serverPid).cpuSeconds };
    const done = now.units - last.units;
    slices.push({ seconds: (now.at - last.at) / 1000, units: done, serverCpuUsPerUnit: done === 0 ? 0 : ((now.cpu - last.cpu) / done) * 1e6 });
    last = now;
  };
  const timer = setInterval(take, SLICE_SECONDS * 1000);
  return {
    stop() {
      clearInterval(timer);
      // A last slice shorter than half a slice says little: left out.
      if (performance.now() - last.at >= (SLICE_SECONDS * 1000) / 2) take();
      return slices;
    },
  };
}

/** One line for the report: each slice's units per second and server CPU per unit; undefined for a window of one slice. */
export function formatTimeline(timeline: Timeline | undefined, unit: string): string | undefined {
  if (timeline === undefined || timeline.length < 2) return undefined;
  const cells = timeline.map((s) => `${Math.round(s.units / s.seconds)}/s ${Math.round(s.serverCpuUsPerUnit).toLocaleString("en-US")} µs`);
  return `every ${SLICE_SECONDS} s (${unit}s/s, server CPU µs/${unit}): ${cells.join(" · ")}`;
}
