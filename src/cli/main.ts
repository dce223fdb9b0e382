import { runCli } from "./run-cli.ts";

// Entry point of `portcullis` (bin/portcullis.js). The command table lives in run-cli.ts, which tests
// can import without running anything. exitCode rather than exit(): let stdout drain first.
process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
