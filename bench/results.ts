import type { FloorName, ScenarioName } from "./scenarios.ts";
import type { LoopFloorName, LoopSample } from "./floors.ts";
import type { LoadResult } from "./load-protocol.ts";
import type { BenchOptions } from "./options.ts";

/** Everything one bench run found; printed as tables and written to bench/results/latest.json. */
export interface BenchResults {
  date: string;
  machine: { node: string; cpuModel: string; cores: number; loadAverage: number[] };
  options: BenchOptions;
  floors: Partial<Record<LoopFloorName, LoopFloor>> & { bare_http?: LoadMeasurement };
  measurements: ScenarioMeasurement[];
  targets: TargetResult[];
}

/** A loop floor (RS256, scrypt), sampled right before and right after each scenario compared with it; the ratios use the mean. */
export interface LoopFloor {
  perSecond: number;
  perCpuSecond: number;
  samples: LoopSample[];
  /** The scenarios it was sampled around. */
  around: string[];
}

export interface LoadMeasurement {
  result: LoadResult;
  /** Why this is not a number (failed responses); empty when valid. */
  problems: string[];
}

export interface ScenarioMeasurement extends LoadMeasurement {
  scenario: ScenarioName;
  label: string;
  floor: FloorName;
  /** Floor operations per unit of work: the ratio is to the floor divided by this. */
  floorOps: number;
  /** req/s (flows/s) divided by floor/floorOps; null when either side is invalid. The targets use this one. */
  ratio: number | null;
  /**
   * The same ratio per CPU second (floor's CPU time per unit × floorOps / server CPU time per unit).
   * Close to `ratio` on a quiet machine; when other processes take the server's core it is the steadier one.
   */
  cpuRatio: number | null;
}

export interface TargetResult {
  label: string;
  scenario: ScenarioName;
  minRatio: number;
  ratio: number | null;
  status: "PASS" | "FAIL" | "INVALID";
  reference: string | undefined;
}
