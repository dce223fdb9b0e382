import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Real servers on loopback: keep files in separate processes, but not too many on 2 cores.
    pool: "forks",
    maxWorkers: 2,
  },
});
