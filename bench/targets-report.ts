import { fmt, NOISY_WAIT, pct, range, table } from "./report-format.ts";
import type { BenchResults, ScenarioMeasurement, ServerMeasurement, TargetResult } from "./results.ts";
import { median, providerShareOf } from "./round-ratios.ts";
import { SCENARIOS } from "./scenarios.ts";
import {
  CEILING_TARGETS,
  CEILING_WITHOUT_TARGET,
  DPOP_EXTRA_CPU_TARGET,
  LDAP_TARGETS,
  LDAP_WITHOUT_TARGET,
  MIN_SHARE_OF_PEER,
  PEER_WITHOUT_TARGET,
  shareLabel,
  sharePair,
  WORKER_SCALING_TARGET,
  type Against,
} from "./targets.ts";

/** Above this quotient of two servers' median `server CPU`, on a core others took, the rate quotient measures the scheduler. */
const UNEQUAL_CORE_SHARE = 1.3;

/**
 * A quotient the report shows: Portcullis ÷ its ceiling or ÷ the peer, or Portcullis on LDAP ÷ on
 * users.yaml (`mine` ÷ `other`), with the target it is judged by, if any.
 */
interface Comparison {
  m: ScenarioMeasurement;
  against: Against;
  mine: ServerMeasurement;
  other: ServerMeasurement;
  label: string;
  target: TargetResult | undefined;
}

/** Why a quotient of each kind has no target, by scenario. */
const WITHOUT_TARGET: Record<Against, Partial<Record<ScenarioMeasurement["scenario"], string>>> = {
  ceiling: CEILING_WITHOUT_TARGET,
  peer: PEER_WITHOUT_TARGET,
  "users.yaml": LDAP_WITHOUT_TARGET,
};

/**
 * The targets section: which targets the stage has and which this run judged, then Portcullis ÷ its
 * ceiling (every scenario with one, a target or not) and ÷ the peer, with both servers' rates, the
 * rounds' range, the quotient by CPU and the result. (The --workers target is in its own section.)
 */
export function targetsSection(results: BenchResults): string[] {
  const ceilingTargets = CEILING_TARGETS.map((t) => `${SCENARIOS[t.scenario].label} ≥ ${t.minShare}× its ceiling`).join(", ");
  const ldapTargets = LDAP_TARGETS.map((t) => `${SCENARIOS[t.scenario].label} on LDAP ≥ ${t.minShare}× on users.yaml`).join(", ");
  const lines = [
    `Targets: every scenario ≥ ${MIN_SHARE_OF_PEER}× node-oidc-provider (--peer), ${ceilingTargets}, N workers ≥ ${WORKER_SCALING_TARGET}× one (--workers), ${ldapTargets} (--ldap), DPoP's extra CPU per request over bearer ≤ ${DPOP_EXTRA_CPU_TARGET} ES256 verification.`,
    "The ratios to the floors above have no target: they are context.",
    ...notJudged(results),
  ];
  const comparisons = [
    ...comparisonsWith(results, "ceiling"),
    ...comparisonsWith(results, "peer"),
    ...comparisonsWith(results, "users.yaml"),
  ];
  if (comparisons.length === 0) return lines;
  const rows: string[][] = [["comparison", "Portcullis", "other", "Portcullis ÷ other", "range", "by CPU", "target", "result"]];
  for (const { mine, other, label, target } of comparisons) {
    const share = providerShareOf(mine, other);
    const byCpu = providerShareOf(mine, other, "cpuRatio");
    rows.push([
      label,
      rateOf(mine),
      rateOf(other),
      share ? fmt(share.median, 2) : "INVALID",
      share ? range(share) : "-",
      byCpu ? fmt(byCpu.median, 2) : "-",
      target ? bound(target) : "-",
      target?.status ?? "no target",
    ]);
  }
  lines.push("", ...table(rows));
  lines.push(
    "  Portcullis ÷ other: median of the rounds' quotients of the two servers' rates (same rounds, same floor samples; the targets use it); the rates",
    "  are medians (req/s or flows/s). By CPU: the same from CPU time per unit of work (the other's µs ÷ Portcullis's), the cross-check on a busy machine.",
  );
  if (comparisons.some((c) => c.against === "ceiling")) {
    lines.push(
      "  A ceiling is a minimal node:http server doing the scenario's protocol work and nothing else (bench/workers/ceiling-*.ts): what a",
      "  near-perfect Node implementation reaches on this machine.",
    );
  }
  if (comparisons.some((c) => c.against === "users.yaml")) {
    lines.push(
      "  On LDAP: the same provider and demo configuration with its employees in a directory (slapd with the demo's people, on the server core",
      "  too; directory.yaml as `npm run demo:ldap` writes it, users.yaml empty), measured in the same rounds as the provider on users.yaml.",
      "  Its CPU figures are the provider's alone; what slapd spends per check is the `directory` row above.",
    );
  }
  for (const { m, against, target } of comparisons) {
    const why = WITHOUT_TARGET[against][m.scenario];
    if (!target && why) lines.push(`  ${shareLabel(m, against)}: no target — ${why}`);
  }
  for (const m of results.measurements) {
    const difference = m.peer ? SCENARIOS[m.scenario].peerDifference : undefined;
    if (difference) lines.push(`  peer, ${m.label}: ${difference}`);
  }
  for (const m of results.measurements) {
    const difference = m.ldap ? SCENARIOS[m.scenario].ldapDifference : undefined;
    if (difference) lines.push(`  on LDAP, ${m.label}: ${difference}`);
  }
  lines.push(...unequalShares(comparisons));
  return lines;
}

/** The run's quotients against one kind of server, each with its target when it has one. */
function comparisonsWith(results: BenchResults, against: Against): Comparison[] {
  return results.measurements.flatMap((m) => {
    const pair = sharePair(m, against);
    if (!pair) return [];
    const target = results.targets.find((t) => t.scenario === m.scenario && t.against === against);
    return [{ m, against, mine: pair[0], other: pair[1], label: shareLabel(m, against), target }];
  });
}

/** The targets this run could not judge, and what would: a run without them passes --check on validity alone. */
function notJudged(results: BenchResults): string[] {
  const missing: string[] = [];
  if (!results.options.peer) missing.push("÷ node-oidc-provider (needs --peer)");
  for (const { scenario } of CEILING_TARGETS) {
    if (!results.targets.some((t) => t.scenario === scenario && t.against === "ceiling"))
      missing.push(`${SCENARIOS[scenario].label} ÷ its ceiling (needs ${scenario} with the ceilings)`);
  }
  if (!results.workerScaling) missing.push("N workers ÷ one (needs --workers)");
  if (!results.options.ldap) missing.push("on LDAP ÷ on users.yaml (needs --ldap)");
  else
    for (const { scenario } of LDAP_TARGETS) {
      if (!results.targets.some((t) => t.scenario === scenario && t.against === "users.yaml"))
        missing.push(`${SCENARIOS[scenario].label} on LDAP ÷ on users.yaml (needs ${scenario})`);
    }
  if (missing.length === 0) return [];
  const none = results.targets.length === 0 ? " No target was judged: --check only checks that every measurement is valid." : "";
  return [`Not judged in this run: ${missing.join("; ")}.${none}`];
}

/** A target's bound as the table prints it. */
function bound(t: TargetResult): string {
  return t.maxRatio !== undefined ? `≤ ${t.maxRatio}` : `≥ ${t.minRatio}`;
}

function rateOf(s: ServerMeasurement): string {
  if (s.problems.length > 0 || s.rounds.length === 0) return "INVALID";
  const rate = median(s.rounds.map((r) => r.result.reqPerSec));
  return `${fmt(rate, rate < 100 ? 1 : 0)}/s`;
}

/**
 * When other processes took the server core, a server with more runnable threads (node-oidc-provider signs
 * on libuv's thread pool) gets more of it: say so where the two servers of a comparison got very
 * different shares, since then only the quotient by CPU compares their code.
 */
function unequalShares(comparisons: readonly Comparison[]): string[] {
  return comparisons.flatMap(({ m, mine: ours, other, label }) => {
    const cpu = (s: ServerMeasurement) => (s.rounds.length > 0 ? median(s.rounds.map((r) => r.result.serverCpu)) : 0);
    const taken = Math.max(...[ours, other].flatMap((s) => s.rounds.map((r) => r.result.coreTaken)));
    const [mine, theirs] = [cpu(ours), cpu(other)];
    if (taken <= NOISY_WAIT || mine === 0 || theirs === 0 || Math.max(mine / theirs, theirs / mine) < UNEQUAL_CORE_SHARE) return [];
    return [
      `  note: ${label}: ${ours === m ? "Portcullis" : ours.label} got ${pct(mine)} of the server core, ${other.label} ${pct(theirs)}, with up to ${pct(taken)} taken by other processes: the rate quotient mostly shows how the scheduler shared the core; the quotient by CPU compares the work`,
    ];
  });
}
