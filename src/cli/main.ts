import { runCli } from "./run-cli.ts";

// A reader that stops early (`portcullis keys list | head -3`) closes the pipe: the rest of the output
// has nowhere to go, which is no error of ours. Leave quietly, as a shell tool does, instead of a stack
// trace from the unhandled 'error' event.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

// Entry point of `portcullis` (bin/portcullis.js). The command table lives in run-cli.ts, which tests
// can import without running anything. exitCode rather than exit(): let stdout drain first.
process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
