import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/**
 * Every process the bench starts is registered here, so that any way out of the bench — normal end,
 * an error, Ctrl-C, SIGTERM — kills whatever is still running. A bench that leaves a provider pinned
 * to core 0 spoils every later measurement on the machine.
 */
const running = new Set<ChildProcess>();
const exitHooks: Array<() => void> = [];
let installed = false;

export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  installCleanup();
  const child = spawn(command, args, options);
  running.add(child);
  child.once("exit", () => running.delete(child));
  // A spawn failure (ENOENT) is reported by whoever awaits the child; don't crash on the event itself.
  child.once("error", () => running.delete(child));
  return child;
}

/** Runs on process exit, after the children are killed (synchronous work only: temp dir removal). */
export function onBenchExit(hook: () => void): void {
  installCleanup();
  exitHooks.push(hook);
}

/** Resolves with the exit code (or signal name) once the child has exited. */
export function exited(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve, reject) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
    child.once("error", reject);
  });
}

/** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child).catch(() => undefined);
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await done;
  clearTimeout(timer);
}

function killAll(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  running.clear();
}

function installCleanup(): void {
  if (installed) return;
  installed = true;
  process.once("exit", () => {
    killAll();
    for (const hook of exitHooks.splice(0)) {
      try {
        hook();
      } catch {
        // Best effort: exit hooks must not keep other hooks from running.
      }
    }
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal} received: stopping the bench and its child processes\n`);
      // process.exit runs the "exit" handler above, which kills the children.
      process.exit(signal === "SIGINT" ? 130 : 143);
    });
  }
}
