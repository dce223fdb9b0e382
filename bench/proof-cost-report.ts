import { fmt, range, table } from "./report-format.ts";
import type { BenchResults, Spread, TargetResult } from "./results.ts";
import { es256CpuUs } from "./proof-cost.ts";
import type { TwinComparison } from "./results.ts";
import { SCENARIOS } from "./scenarios.ts";
import { DPOP_EXTRA_CPU_TARGET } from "./targets.ts";

/**
 * The report's section on DPoP and private_key_jwt (bench/proof-cost.ts): each proof scenario ÷ its twin
 * with a shared secret and a bearer token, on Portcullis and on the peer, the extra CPU per request, and
 * the DPoP targets on it. (Their ÷ node-oidc-provider targets are in the targets table with the others.)
 */
export function proofCostSection(results: BenchResults): string[] {
  const costs = results.proofCosts ?? [];
  if (costs.length === 0) return [];
  const es256 = es256CpuUs(results.floors);
  const unit = (scenario: (typeof costs)[number]["scenario"]) => (SCENARIOS[scenario].kind === "flow" ? "flow" : "req");
  const rows: string[][] = [
    [
      "DPoP and private_key_jwt",
      "÷ bearer, shared secret",
      "range",
      "extra CPU µs",
      "÷ ES256 verification",
      "peer: ÷ its own",
      "peer: extra CPU µs",
    ],
  ];
  for (const c of costs) {
    rows.push([
      `${c.label} ÷ ${SCENARIOS[c.twin].label}`,
      c.twinMeasured ? shareOf(c.provider) : "-",
      c.provider ? range(c.provider.rateShare) : "-",
      c.provider ? `${extra(c.provider.extraCpuUs)}/${unit(c.scenario)}` : c.twinMeasured ? "INVALID" : "-",
      c.provider && es256 ? fmt(c.provider.extraCpuUs.median / es256, 2) : "-",
      c.peer === undefined || !c.twinMeasured ? "-" : shareOf(c.peer),
      c.peer ? `${extra(c.peer.extraCpuUs)}/${unit(c.scenario)}` : "-",
    ]);
  }
  const lines = ["", ...table(rows)];
  lines.push(
    "  Each proof scenario alternates round by round with its twin (the same client and grant with a shared secret and bearer tokens); per",
    "  round its rate ÷ the twin's, and the server's CPU µs per unit with the proof − without (median, with its range); the load generator",
    "  signs a fresh DPoP proof (new jti, iat now) or client assertion (new jti) for every request, on its own core.",
    es256 === null
      ? "  ES256 verification: not measured in this run (it is sampled with the DPoP scenarios)."
      : `  ES256 verification on the server core: ${fmt(es256, 0)} CPU µs (median of the ES256 samples; node:crypto verify with the KeyObject and a DER signature, its cheapest form).`,
  );
  const missing = costs.filter((c) => !c.twinMeasured).map((c) => c.twin);
  if (missing.length > 0)
    lines.push(`  Not measured with its twin: add ${[...new Set(missing)].join(", ")} to --only for the quotients (and the DPoP targets).`);
  const dpop = results.targets.filter((t) => t.against === "ES256 verification");
  for (const t of dpop) lines.push(`target  ${t.label}: ${ratioOf(t)}  ${t.status}`);
  if (dpop.length > 0)
    lines.push(`  (extra CPU µs per request ÷ one ES256 verification's, median of the rounds; at most ${DPOP_EXTRA_CPU_TARGET})`);
  return lines;
}

function shareOf(c: TwinComparison | null): string {
  return c ? fmt(c.rateShare.median, 2) : "INVALID";
}

function extra(s: Spread): string {
  return `${s.median >= 0 ? "+" : ""}${fmt(s.median, 0)}`;
}

function ratioOf(t: TargetResult): string {
  return t.ratio === null ? "-" : `${fmt(t.ratio, 2)}${t.range ? ` (${range(t.range)})` : ""}`;
}
