/**
 * The summary of a comparison: per pair, the working tree's figure divided by the base's, measured one
 * right after the other; over the pairs, the median and the quartiles. Two windows seconds apart share
 * the machine's state (a host slowdown lasts longer than a pair), so the pair ratio cancels most of it.
 */
export interface WindowFigures {
  /** Operations (flows or requests) per second of wall time. */
  rate: number;
  /** The provider's CPU time (all threads) per operation, µs. */
  cpuUs: number;
}

export interface PairRatios {
  /** Working tree ÷ base: above 1 is faster. */
  rate: number;
  /** Working tree ÷ base: below 1 is cheaper. */
  cpuUs: number;
}

export interface Quartiles {
  q1: number;
  median: number;
  q3: number;
}

export function pairRatios(base: WindowFigures, work: WindowFigures): PairRatios {
  return { rate: work.rate / base.rate, cpuUs: work.cpuUs / base.cpuUs };
}

/** Quartiles by linear interpolation between the sorted values (the median of an even count is the mean of the middle two). */
export function quartiles(values: readonly number[]): Quartiles {
  if (values.length === 0) throw new RangeError("no values to summarise");
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => {
    const position = (sorted.length - 1) * p;
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
  };
  return { q1: at(0.25), median: at(0.5), q3: at(0.75) };
}

/** Which tree a pair loads first: base first in even pairs, the working tree first in odd ones (ABBA…). */
export function baseGoesFirst(pair: number): boolean {
  return pair % 2 === 0;
}
