import { describe, expect, it } from "vitest";
import { formatTimeline } from "../../bench/timeline.ts";

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

  it("leaves out a window of one slice", () => {
    expect(formatTimeline([{ seconds: 10, units: 10, serverCpuUsPerUnit: 1 }], "flow")).toBeUndefined();
    expect(formatTimeline(undefined, "flow")).toBeUndefined();
  });
});
