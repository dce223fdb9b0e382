import type { BenchResults } from "./results.ts";

/**
 * Why `npm run bench -- --check` fails a run, one line per reason: a target not passed (FAIL, or
 * INVALID when its rounds were), or any invalid measurement (a floor sample, the provider's, a ceiling's,
 * the peer's or the LDAP provider's windows), with or without a target, since a number that is not one
 * must not pass CI quietly. Empty when the run passes.
 */
export function checkFailures(results: BenchResults): string[] {
  const failures: string[] = [];
  for (const [floor, series] of Object.entries(results.floors)) {
    const invalid = series.samples.filter((s) => s.problems.length > 0).length;
    if (invalid > 0) failures.push(`${invalid} invalid ${floor} floor sample${invalid === 1 ? "" : "s"}`);
  }
  for (const m of results.measurements) {
    for (const server of [m, m.ceiling, m.peer, m.ldap]) {
      if (server && server.problems.length > 0) failures.push(`${server.label} (${m.scenario}) is invalid: ${server.problems.join("; ")}`);
    }
  }
  for (const t of results.targets) {
    if (t.status !== "PASS") failures.push(`target ${t.label}: ${t.status}${t.ratio === null ? "" : ` (${t.ratio.toFixed(2)})`}`);
  }
  return failures;
}
