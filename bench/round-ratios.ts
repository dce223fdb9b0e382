import type { LoadResult } from "./load-protocol.ts";
import type { FloorSample, FloorSeries, RoundResult, ServerMeasurement, Spread } from "./results.ts";

/**
 * From raw windows and floor samples to ratios: each round against the two floor samples around it, and
 * a server's ratio as the median of its rounds' (one round on a noisy machine cannot move a median of
 * three; the range shows how far the rounds disagreed).
 */

/** The middle value; for an even count, the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("the median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median and range; null for no values. */
export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** A floor's samples, summarised over the valid ones. */
export function floorSeries(samples: FloorSample[]): FloorSeries {
  const valid = samples.filter((s) => s.problems.length === 0);
  return { samples, perSecond: spread(valid.map((s) => s.perSecond)), cpuUsPerOp: spread(valid.map((s) => s.cpuUsPerOp)) };
}

/**
 * One round's ratios: the window's rate ÷ (the better of the floor samples right before and right after
 * it ÷ floorOps), and the same computed from CPU time per unit of work. The better, not the mean: the
 * host slows this VM in stretches of 0.5–2 s that neither `core taken` nor CPU time shows, so a floor
 * sample can only read too low, never too high, and a low one would inflate both rounds beside it
 * (docs/performance.md, "Rounds and ceilings").
 */
export function roundRatios(
  window: Pick<LoadResult, "reqPerSec" | "serverCpuUsPerRequest">,
  before: Pick<FloorSample, "perSecond" | "cpuUsPerOp">,
  after: Pick<FloorSample, "perSecond" | "cpuUsPerOp">,
  floorOps: number,
): { ratio: number; cpuRatio: number } {
  const floorPerSecond = Math.max(before.perSecond, after.perSecond);
  const floorCpuUsPerOp = Math.min(before.cpuUsPerOp, after.cpuUsPerOp);
  return { ratio: (window.reqPerSec * floorOps) / floorPerSecond, cpuRatio: (floorOps * floorCpuUsPerOp) / window.serverCpuUsPerRequest };
}

/** One load window as the bench recorded it, before ratios. */
export interface RecordedWindow {
  /** From 0. */
  round: number;
  result: LoadResult;
  problems: string[];
  /** Indexes of the floor samples right before and right after its round. */
  floorSamples: [number, number];
}

/**
 * A server's rounds against its floor. Any invalid window or floor sample makes the whole measurement
 * invalid (a median that quietly skips a failed round would hide the failure).
 */
export function measureServer(
  label: string,
  windows: readonly RecordedWindow[],
  floor: readonly FloorSample[],
  floorOps: number,
): ServerMeasurement {
  const rounds: RoundResult[] = windows.map(({ round, result, problems, floorSamples }) => {
    const [before, after] = floorSamples.map((i) => floor[i]);
    const found = [...problems];
    for (const [i, sample] of [before, after].entries()) {
      if (!sample) found.push(`no floor sample ${i === 0 ? "before" : "after"} it`);
      else if (sample.problems.length > 0) found.push(`the floor sample ${i === 0 ? "before" : "after"} it is invalid`);
    }
    const ratios = found.length === 0 ? roundRatios(result, before!, after!, floorOps) : { ratio: null, cpuRatio: null };
    return { round: round + 1, result, problems: found, floorSamples, ...ratios };
  });
  const problems = rounds.flatMap((r) => r.problems.map((p) => (rounds.length > 1 ? `round ${r.round}: ${p}` : p)));
  if (rounds.length === 0) problems.push("not measured");
  const valid = problems.length === 0;
  return {
    label,
    rounds,
    problems,
    ratio: valid ? spread(rounds.map((r) => r.ratio!)) : null,
    cpuRatio: valid ? spread(rounds.map((r) => r.cpuRatio!)) : null,
  };
}

/**
 * Provider ÷ another server measured in the same rounds (a ceiling, the peer): per round the two rates'
 * quotient (their floor samples are the same, so it cancels out); the median and range over the rounds.
 * By `cpuRatio`: the quotient of their CPU time per unit of work (the other's ÷ the provider's), which
 * time taken from the core by other processes does not move. Null when either is invalid.
 */
export function providerShareOf(provider: ServerMeasurement, other: ServerMeasurement, by: "ratio" | "cpuRatio" = "ratio"): Spread | null {
  if (provider.problems.length > 0 || other.problems.length > 0) return null;
  const shares = provider.rounds.flatMap((p) => {
    const o = other.rounds.find((r) => r.round === p.round);
    const mine = p[by];
    const theirs = o?.[by];
    return theirs && mine !== null ? [mine / theirs] : [];
  });
  return spread(shares);
}
