import type { ScalingWindow, TargetResult, WorkerScaling } from "./results.ts";

/** Below this share of a core per worker, the workers were starved and the ratio says nothing about scaling. */
const BUSY_SHARE = 0.8;

/** The --workers section of the report: each round's req/s with one worker and with several, and the ratio against its target (targets.ts). */
export function formatWorkerScaling(scaling: WorkerScaling, target: TargetResult): string[] {
  const n = scaling.workers;
  const lines = [
    `Workers (listen.workers, Redis store, providers on cores ${scaling.cores}, load generator on its own core shared with them, ${scaling.connections} connections):`,
  ];
  scaling.rounds.forEach((round, i) => {
    const ratio = round.ratio === null ? "invalid" : `${round.ratio.toFixed(2)}×`;
    const window = (w: ScalingWindow) =>
      `${w.reqPerSec.toFixed(0)} req/s on ${w.coresUsed.toFixed(2)} cores (${((w.coresUsed * 1e6) / Math.max(w.reqPerSec, 1)).toFixed(0)} CPU µs/req)`;
    lines.push(`  round ${i + 1}: client_credentials 1 worker ${window(round.one)}, ${n} workers ${window(round.many)}: ${ratio}`);
  });
  for (const problem of scaling.problems) lines.push(`  INVALID ${problem}`);
  const most = Math.max(...scaling.rounds.map((r) => r.many.coresUsed));
  if (most < BUSY_SHARE * n) {
    lines.push(
      `BUSY: the ${n} workers never got more than ${most.toFixed(2)} cores between them: other processes held the rest (with sched_autogroup, a session's`,
      "  processes share one slice however many there are), so this ratio measures the machine, not the workers; rerun when it is quiet.",
    );
  }
  lines.push(
    "  cores: CPU time of the provider's processes (primary and workers) per second of load, warm-up included; CPU µs/req from it and the recorded rate.",
  );
  lines.push(`target  ${target.label}: ${target.ratio === null ? "-" : target.ratio.toFixed(2)} (median of the rounds)  ${target.status}`);
  return lines;
}
