import type { FloorSeries, ProofCost, ScenarioMeasurement, ServerMeasurement, Spread, TwinComparison } from "./results.ts";
import { spread } from "./round-ratios.ts";
import { SCENARIOS, type ScenarioName } from "./scenarios.ts";

/**
 * What DPoP and private_key_jwt cost (issue 28 §8): each proof scenario against its twin, the same
 * scenario with a shared secret and a bearer token, measured on the same server in the same rounds
 * (they alternate: round-plan.ts). Per round, the rate with the proof ÷ the rate without, and the server's
 * CPU per unit of work with it − without; the median and range over the rounds. CPU time per unit is the
 * figure a busy machine moves least, so the extra CPU is what is compared with one ES256 verification.
 */

/** A proof scenario's rounds against its twin's, by round number; null when either is invalid or they share no round. */
export function twinComparison(withProof: ServerMeasurement, twin: ServerMeasurement): TwinComparison | null {
  if (withProof.problems.length > 0 || twin.problems.length > 0) return null;
  const pairs = withProof.rounds.flatMap((r) => {
    const other = twin.rounds.find((t) => t.round === r.round);
    return other ? [[r.result, other.result] as const] : [];
  });
  const rateShare = spread(pairs.filter(([, t]) => t.reqPerSec > 0).map(([p, t]) => p.reqPerSec / t.reqPerSec));
  const extraCpuUs = spread(pairs.map(([p, t]) => p.serverCpuUsPerRequest - t.serverCpuUsPerRequest));
  return rateShare && extraCpuUs ? { rateShare, extraCpuUs } : null;
}

/** Every proof scenario of the run against its twin, on the provider and (when measured) on the peer. */
export function proofCosts(measurements: readonly ScenarioMeasurement[]): ProofCost[] {
  return measurements.flatMap((m) => {
    const proof = SCENARIOS[m.scenario].proof;
    if (!proof) return [];
    const twin = measurements.find((t) => t.scenario === proof.twin);
    const cost: ProofCost = {
      scenario: m.scenario,
      label: m.label,
      twin: proof.twin,
      kind: proof.kind,
      twinMeasured: twin !== undefined,
      provider: twin ? twinComparison(m, twin) : null,
    };
    if (m.peer) cost.peer = twin?.peer ? twinComparison(m.peer, twin.peer) : null;
    return [cost];
  });
}

/** CPU µs of one ES256 verification on the server core: the median of the run's ES256 floor samples; null without any. */
export function es256CpuUs(floors: Partial<Record<"es256", FloorSeries>>): number | null {
  return floors.es256?.cpuUsPerOp?.median ?? null;
}
