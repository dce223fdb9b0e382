/**
 * `portcullis start` in a process of its own, as an operator runs it, with its output captured: for
 * tests of what the process itself does (its exit code, what it prints, signals, ports).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/portcullis.js", import.meta.url));
/** Generous: start-up loads the TypeScript sources, which is slow on a busy machine. */
const STARTUP_MS = 60_000;

export interface StartedProcess {
  child: ChildProcess;
  /** Where it listens, from the banner; undefined when it exited (or never said) instead. */
  url: string | undefined;
  /** Resolves to the exit code, or to the signal's name when a signal ended it (a failing `toBe(0)` then says which). */
  exited: Promise<number | NodeJS.Signals>;
  stderr(): string;
  /** The JSON log lines so far. */
  stdout(): string;
}

/** Spawns `portcullis start ARGS` and waits until it says where it listens, or exits. */
export async function spawnStart(args: string[], env: NodeJS.ProcessEnv = {}): Promise<StartedProcess> {
  const child = spawn(process.execPath, [BIN, "start", ...args], { env: { ...process.env, PORTCULLIS_CONFIG: "", PORT: "", ...env } });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdout.on("data", (chunk) => (stdout += chunk));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal!)));
  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + STARTUP_MS;
  while (!done && !/listening on (\S+)/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return { child, url: /listening on (\S+)/.exec(stderr)?.[1], exited, stderr: () => stderr, stdout: () => stdout };
}

/** Polls `condition` every 50 ms until it holds; fails after `limitMs` (generous: never a measure of speed). */
export async function eventually(condition: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
