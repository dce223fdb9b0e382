import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTimeline, startTimeline } from "../../bench/timeline.ts";

describe("the report's timeline line", () => {
  it("shows each slice's rate and CPU per unit, in order", () => {
    const line = formatTimeline(
      [
        { seconds: 10, units: 3_250, serverCpuUsPerUnit: 1_204.4 },
        { seconds: 10, units: 2_510, serverCpuUsPerUnit: 1_530.6 },
      ],
      "flow",
    );
    expect(line).toBe("every 10 s (flows/s, server CPU µs/flow): 325/s 1,204 µs · 251/s 1,531 µs");
  });

  it("names the slices' length the job chose", () => {
    const second = { seconds: 1.002, units: 300, serverCpuUsPerUnit: 1_000 };
    expect(formatTimeline([second, second], "flow")).toBe("every 1 s (flows/s, server CPU µs/flow): 299/s 1,000 µs · 299/s 1,000 µs");
  });

  it("leaves out a window of one slice", () => {
    expect(formatTimeline([{ seconds: 10, units: 10, serverCpuUsPerUnit: 1 }], "flow")).toBeUndefined();
    expect(formatTimeline(undefined, "flow")).toBeUndefined();
  });
});

describe("the timeline's slices", () => {
  afterEach(() => vi.useRealTimers());

  it("count every unit of the window once, a few units after the last tick included", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    let completed = 0;
    const timeline = startTimeline(process.pid, () => completed);
    completed += 7;
    vi.advanceTimersByTime(10_000);
    completed += 5;
    vi.advanceTimersByTime(10_000);
    // The window's own timer ends a moment after the slice timer's last tick: one more unit in between.
    completed += 1;
    vi.advanceTimersByTime(3);
    const slices = timeline.stop();
    expect(slices.map((s) => s.units)).toEqual([7, 6]);
    expect(slices[1]!.seconds).toBeCloseTo(10.003, 3);
  });

  it("cuts slices of the length asked for", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    let completed = 0;
    const timeline = startTimeline(process.pid, () => completed, 1);
    completed += 3;
    vi.advanceTimersByTime(1_000);
    completed += 2;
    vi.advanceTimersByTime(1_000);
    const slices = timeline.stop();
    expect(slices.map((s) => [s.units, s.seconds])).toEqual([
      [3, 1],
      [2, 1],
    ]);
  });

  it("keeps a tail of half a slice or more as a slice of its own", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    let completed = 0;
    const timeline = startTimeline(process.pid, () => completed);
    completed += 4;
    vi.advanceTimersByTime(10_000);
    completed += 2;
    vi.advanceTimersByTime(6_000);
    expect(timeline.stop().map((s) => s.units)).toEqual([4, 2]);
  });
});
