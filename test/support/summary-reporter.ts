import type { Reporter, SerializedError, TestModule } from "vitest/node";

/**
 * Ends every run with one plain line, `N passed, N failed, N skipped`, that any CI log reader
 * understands, after vitest's own summary. A test file can fail with none of its tests failed (it did
 * not load, or a beforeAll hook threw and its tests were skipped), and an error can escape every test:
 * the line says so too, so that it never reads "0 failed" for a run that failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    let filesFailedOutsideTests = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed" || state === "failed" || state === "skipped") counts[state]++;
        if (state === "failed") failedHere++;
      }
      if (module.state() === "failed" && failedHere === 0) filesFailedOutsideTests++;
    }
    const extra = [
      ...(filesFailedOutsideTests > 0
        ? [`${filesFailedOutsideTests} test file(s) failed outside their tests (a load error or a failed hook)`]
        : []),
      ...(unhandledErrors.length > 0 ? [`${unhandledErrors.length} unhandled error(s)`] : []),
    ];
    process.stdout.write(
      `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${extra.map((e) => `; ${e}`).join("")}\n`,
    );
  }
}
