/**
 * vitest globalSetup: starts Redis and PostgreSQL once per run when the machine has them, and hands their
 * URLs (or why there is none) to the test files through `provide`/`inject`; stops them at the end.
 */
import type { TestProject } from "vitest/node";
import { startPostgres, startRedis, type RunningService } from "./services.ts";

/** A service as the test files see it: a URL, or the reason there is none. */
export interface ProvidedService {
  url: string | null;
  reason: string | null;
}

declare module "vitest" {
  export interface ProvidedContext {
    redis: ProvidedService;
    postgres: ProvidedService;
  }
}

const notInstalled = {
  redis: "redis-server not installed (apt-get install redis-server)",
  postgres: "PostgreSQL not installed (apt-get install postgresql)",
} as const;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [redis, postgres] = await Promise.all([start("redis", startRedis), start("postgres", startPostgres)]);
  project.provide("redis", redis.provided);
  project.provide("postgres", postgres.provided);
  return async () => {
    await Promise.all([redis.running?.stop(), postgres.running?.stop()]);
  };
}

async function start(
  name: keyof typeof notInstalled,
  starter: () => Promise<RunningService | undefined>,
): Promise<{ running: RunningService | undefined; provided: ProvidedService }> {
  try {
    const running = await starter();
    if (running === undefined) return { running, provided: { url: null, reason: notInstalled[name] } };
    return { running, provided: { url: running.url, reason: null } };
  } catch (error) {
    // Installed but broken: the suites that need it say so (and fail under CI); the others still run.
    return { running: undefined, provided: { url: null, reason: `${name} failed to start: ${(error as Error).message}` } };
  }
}
