/** From windows and floor samples to ratios (bench/round-ratios.ts): per round, then the median of the rounds. */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load-protocol.ts";
import type { FloorSample } from "../../bench/results.ts";
import { measureServer, median, providerShareOf, roundRatios, spread, type RecordedWindow } from "../../bench/round-ratios.ts";

function floorSample(perSecond: number, cpuUsPerOp: number, problems: string[] = []): FloorSample {
  return {
    perSecond,
    cpuUsPerOp,
    coreTaken: 0,
    problems,
    raw: { operations: 0, seconds: 1, perSecond, perCpuSecond: 1e6 / cpuUsPerOp, coreTaken: 0 },
  };
}

function window(round: number, reqPerSec: number, serverCpuUsPerRequest: number, problems: string[] = []): RecordedWindow {
  const result = { reqPerSec, serverCpuUsPerRequest } as LoadResult;
  return { round, result, problems, floorSamples: [round, round + 1] };
}

describe("median and spread", () => {
  it("takes the middle value of an odd count, whatever the order", () => {
    expect(median([0.71, 0.62, 0.9])).toBe(0.71);
  });

  it("takes the mean of the two middle values of an even count", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it("refuses no values rather than inventing one", () => {
    expect(() => median([])).toThrow(RangeError);
    expect(spread([])).toBeNull();
  });

  it("gives the lowest and highest with the median", () => {
    expect(spread([0.7, 0.5, 0.8])).toEqual({ median: 0.7, min: 0.5, max: 0.8 });
  });
});

describe("roundRatios", () => {
  it("divides the window's rate by the better of the floor samples before and after it", () => {
    const { ratio, cpuRatio } = roundRatios(
      { reqPerSec: 2_000, serverCpuUsPerRequest: 500 },
      floorSample(3_000, 300),
      floorSample(4_000, 250),
      1,
    );
    expect(ratio).toBeCloseTo(0.5, 10);
    expect(cpuRatio).toBeCloseTo(0.5, 10);
  });

  it("compares with the floor divided by the floor operations of one unit (two signatures per code flow)", () => {
    const { ratio, cpuRatio } = roundRatios(
      { reqPerSec: 1_000, serverCpuUsPerRequest: 600 },
      floorSample(4_000, 250),
      floorSample(4_000, 260),
      2,
    );
    expect(ratio).toBeCloseTo(0.5, 10);
    expect(cpuRatio).toBeCloseTo((2 * 250) / 600, 10);
  });
});

describe("measureServer", () => {
  const floor = [floorSample(4_000, 250), floorSample(3_000, 250), floorSample(4_000, 250), floorSample(4_000, 250)];

  it("reports the median of the rounds' ratios and their range, each round against its own floor samples", () => {
    // Every round against 4,000: the low sample between rounds 1 and 2 inflates neither.
    const m = measureServer("client_credentials", [window(0, 2_400, 400), window(1, 3_200, 400), window(2, 2_800, 400)], floor, 1);
    expect(m.rounds.map((r) => r.ratio)).toEqual([0.6, 0.8, 0.7]);
    expect(m.ratio).toEqual({ median: 0.7, min: 0.6, max: 0.8 });
    expect(m.rounds.map((r) => r.round)).toEqual([1, 2, 3]);
    expect(m.problems).toEqual([]);
  });

  it("is invalid as a whole when any round had failures, naming the round", () => {
    const m = measureServer("userinfo", [window(0, 2_000, 400), window(1, 2_000, 400, ["3 non-2xx"]), window(2, 2_000, 400)], floor, 1);
    expect(m.ratio).toBeNull();
    expect(m.cpuRatio).toBeNull();
    expect(m.problems).toEqual(["round 2: 3 non-2xx"]);
  });

  it("is invalid when a floor sample next to a round is invalid", () => {
    const broken = [floor[0]!, floorSample(0, 0, ["no successful responses"]), floor[2]!];
    const m = measureServer("discovery", [window(0, 2_000, 40), window(1, 2_000, 40)], broken, 1);
    expect(m.ratio).toBeNull();
    expect(m.problems).toEqual(["round 1: the floor sample after it is invalid", "round 2: the floor sample before it is invalid"]);
  });

  it("is invalid when it has no rounds at all", () => {
    expect(measureServer("jwks", [], floor, 1).problems).toEqual(["not measured"]);
  });
});

describe("providerShareOf", () => {
  const floor = [floorSample(4_000, 250), floorSample(4_000, 250), floorSample(4_000, 250)];

  it("pairs the rounds, so that a floor that moves between rounds cancels out", () => {
    const provider = measureServer("p", [window(0, 1_800, 400), window(1, 2_700, 400)], floor, 1);
    const ceiling = measureServer("c", [window(0, 2_000, 350), window(1, 3_000, 350)], floor, 1);
    expect(providerShareOf(provider, ceiling)!.median).toBeCloseTo(0.9, 10);
  });

  it("has no value when either side is invalid", () => {
    const provider = measureServer("p", [window(0, 1_800, 400, ["1 timeouts"])], floor, 1);
    const ceiling = measureServer("c", [window(0, 2_000, 350)], floor, 1);
    expect(providerShareOf(provider, ceiling)).toBeNull();
  });
});
