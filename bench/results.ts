import type { FloorName, ScenarioName } from "./scenarios.ts";
import type { LoopSample } from "./workers/tight-loop.ts";
import type { LoadResult } from "./load-protocol.ts";
import type { BenchOptions } from "./options.ts";
import type { ProofKind } from "./client-proofs.ts";

/** Everything one bench run found, every round's raw numbers included; printed as tables and written to bench/results/latest.json. */
export interface BenchResults {
  date: string;
  machine: { node: string; cpuModel: string; cores: number; loadAverage: number[] };
  /** What was measured: HEAD, and the paths the provider runs from that differed from it (src/ may change during a run). */
  code: { commit: string; uncommitted: string[] };
  options: BenchOptions;
  floors: Partial<Record<FloorName, FloorSeries>>;
  measurements: ScenarioMeasurement[];
  targets: TargetResult[];
  /** What the report should say besides the numbers (e.g. a ceiling whose tokens differ from the provider's). */
  notes: string[];
  /** With --workers: client_credentials with one worker and with several (bench/worker-scaling.ts). */
  workerScaling?: WorkerScaling;
  /** The DPoP and private_key_jwt scenarios against their shared-secret, bearer-token twins (bench/proof-cost.ts). */
  proofCosts?: ProofCost[];
}

/** The median and range of a set of values (the rounds' ratios, a floor's samples). */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** A floor's samples in the order they were taken: one before each scenario's first round and one after each round. */
export interface FloorSeries {
  samples: FloorSample[];
  /** Over the valid samples, for the report's floor row; the ratios use each round's own two samples. */
  perSecond: Spread | null;
  cpuUsPerOp: Spread | null;
}

export interface FloorSample {
  /** Signatures, verifications or (bare node:http) responses per second. */
  perSecond: number;
  /** The floor process's CPU time per operation. */
  cpuUsPerOp: number;
  /** Share of the server core other processes or the hypervisor took meanwhile. */
  coreTaken: number;
  /** Why it is not a number (bare node:http: failed responses); empty when valid. */
  problems: string[];
  /** The measurement itself: a tight loop's sample (RS256, scrypt) or a load window (bare node:http). */
  raw: LoopSample | LoadResult;
}

/** One round of one server (the provider or a ceiling): its load window and its ratios to the floor samples around the round. */
export interface RoundResult {
  /** From 1. */
  round: number;
  result: LoadResult;
  /** Why this window is not a number (failed responses), or why its floor is not (an invalid floor sample); empty when valid. */
  problems: string[];
  /** Indexes in the floor's samples of the samples right before and right after the round. */
  floorSamples: [number, number];
  /** rate × floorOps ÷ the higher of those two samples; null when invalid. */
  ratio: number | null;
  /** The same by CPU time: floor CPU µs per operation × floorOps ÷ server CPU µs per unit; null when invalid. */
  cpuRatio: number | null;
}

export interface ServerMeasurement {
  label: string;
  rounds: RoundResult[];
  /** Every round's problems; any makes the whole measurement invalid (no ratio). */
  problems: string[];
  /** Median and range of the rounds' ratios. The targets use the median. */
  ratio: Spread | null;
  cpuRatio: Spread | null;
}

/** A scenario as the provider served it, and its ceiling (a minimal reference server), the peer and the provider on LDAP when measured. */
export interface ScenarioMeasurement extends ServerMeasurement {
  scenario: ScenarioName;
  floor: FloorName;
  /** Floor operations per unit of work: the ratio is to the floor divided by this. */
  floorOps: number;
  ceiling?: ServerMeasurement;
  /** node-oidc-provider in the same rounds (--peer). */
  peer?: ServerMeasurement;
  /** The provider on the LDAP directory in the same rounds (--ldap). */
  ldap?: ServerMeasurement;
}

/** One target of the stage (targets.ts), judged on this run. */
export interface TargetResult {
  label: string;
  scenario: ScenarioName;
  /**
   * What Portcullis is divided by, in the same rounds: its ceiling, the peer (node-oidc-provider),
   * (--workers) a provider with one worker, divided into one with several, or (--ldap) the provider on
   * users.yaml, divided into the one on the LDAP directory; "ES256 verification": DPoP's extra CPU per
   * request over bearer (the twin scenario's) ÷ one ES256 verification's, which must stay at most maxRatio.
   */
  against: "ceiling" | "peer" | "one worker" | "users.yaml" | "ES256 verification";
  /** The ratio must be at least this; or, for a cost, at most maxRatio (one of the two is set). */
  minRatio?: number;
  maxRatio?: number;
  /** The median of the rounds' quotients. */
  ratio: number | null;
  /** The rounds' median, lowest and highest. */
  range: Spread | null;
  status: "PASS" | "FAIL" | "INVALID";
}

/** client_credentials with one worker and with `workers` (bench/worker-scaling.ts). */
export interface WorkerScaling {
  workers: number;
  /** Cores both providers may run on (taskset list): the same for both, so only the worker count differs. */
  cores: string;
  connections: number;
  /** Per round: one worker's and the many workers' req/s, and their ratio (null when a window was invalid). */
  rounds: Array<{ one: ScalingWindow; many: ScalingWindow; ratio: number | null }>;
  ratio: number | null;
  problems: string[];
}

/** A window of the worker-scaling measurement, with the cores the provider's processes (primary and workers) used meanwhile. */
export type ScalingWindow = LoadResult & { coresUsed: number };

/** One server's proof scenario against its twin. */
export interface TwinComparison {
  /** Per round: req/s (flows/s) with the proof ÷ without. */
  rateShare: Spread;
  /** Per round: server CPU µs per request (flow) with the proof − without. */
  extraCpuUs: Spread;
}

export interface ProofCost {
  scenario: ScenarioName;
  label: string;
  twin: ScenarioName;
  kind: ProofKind;
  /** Whether the run measured the twin too: without it there is nothing to divide by (not judged, not invalid). */
  twinMeasured: boolean;
  /** Null when either scenario's windows were invalid, or the twin was not measured in the run. */
  provider: TwinComparison | null;
  /** node-oidc-provider, when it ran (--peer). */
  peer?: TwinComparison | null;
}
