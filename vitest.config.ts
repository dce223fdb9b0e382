import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Real servers on loopback: keep files in separate processes. Three on 2 cores: most files wait on
    // processes, browsers and servers rather than compute, and the full suite must stay well inside CI's
    // 30 minutes for both Node lines (two workers took 29–31 minutes).
    pool: "forks",
    maxWorkers: 3,
  },
});
