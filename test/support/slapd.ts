/**
 * The directory suites' slapd: the launcher the demo directory uses (src/demo/directory/slapd.ts), and the
 * one helper that skips a suite loudly when slapd is not installed (or fails it under CI).
 */
import { SLAPD_PACKAGES, slapdInstalled } from "../../src/demo/directory/slapd.ts";
import { unavailable } from "./require-service.ts";

export { SIZE_LIMIT, startSlapd, type RunningSlapd, type SlapdOptions } from "../../src/demo/directory/slapd.ts";

/** True when slapd can be started here; otherwise says so in one loud line (and throws under CI). */
export function slapdAvailable(suite: string): boolean {
  if (slapdInstalled()) return true;
  return unavailable(suite, `slapd not installed (${SLAPD_PACKAGES})`);
}
