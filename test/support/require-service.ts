import { inject } from "vitest";

const suiteNames = { redis: "Redis store suite", postgres: "PostgreSQL store suite" } as const;

/** True when the run is in CI, where every service is installed and nothing may be skipped. */
export function inCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/**
 * The URL of a server started by the global setup, or undefined — then the suite must be skipped
 * (`describe.skipIf(!url)`), and this says so in one loud line naming the package to install.
 * Under CI a missing service fails the run instead: CI installs everything, so CI never skips.
 */
export function serviceUrl(service: "redis" | "postgres"): string | undefined {
  const provided = inject(service);
  if (provided.url !== null) return provided.url;
  unavailable(suiteNames[service], provided.reason ?? `${service} unavailable`);
  return undefined;
}

/**
 * For a suite whose server or tool is missing: says in one loud line that `suite` is skipped and why
 * (`reason` names the Debian package to install), or under CI fails the run instead. Answers false, for
 * `describe.skipIf(!available)`.
 */
export function unavailable(suite: string, reason: string): false {
  if (inCi()) throw new Error(`${suite} cannot run in CI: ${reason}`);
  console.warn(`!!! SKIPPED: ${suite} — ${reason}`);
  return false;
}
