import type { EndpointName, FloorName } from "./endpoints.ts";
import type { Rs256Floor } from "./floors.ts";
import type { LoadResult } from "./load-protocol.ts";
import type { BenchOptions } from "./options.ts";

/** Everything one bench run found; printed as a table and written to bench/results/latest.json. */
export interface BenchResults {
  date: string;
  machine: { node: string; cpuModel: string; cores: number; loadAverage: number[] };
  options: BenchOptions;
  floors: {
    /** Measured right before and right after client_credentials; the ratio uses their mean. */
    rs256?: { sigsPerSecond: number; sigsPerCpuSecond: number; samples: Rs256Floor[] };
    bare_http?: LoadMeasurement;
  };
  measurements: EndpointMeasurement[];
  targets: TargetResult[];
}

export interface LoadMeasurement {
  result: LoadResult;
  /** Why this is not a number (failed responses); empty when valid. */
  problems: string[];
}

export interface EndpointMeasurement extends LoadMeasurement {
  endpoint: EndpointName;
  floor: FloorName;
  /** req/s divided by the floor; null when either side is invalid. The targets use this one. */
  ratio: number | null;
  /**
   * The same ratio per CPU second (floor's CPU time per unit / server CPU time per request). Close to
   * `ratio` on a quiet machine; when other processes take the server's core it is the steadier one.
   */
  cpuRatio: number | null;
}

export interface TargetResult {
  label: string;
  endpoint: EndpointName;
  minRatio: number;
  ratio: number | null;
  status: "PASS" | "FAIL" | "INVALID";
  reference: string;
}
