import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { spawnTracked, stop } from "./child-processes.ts";
import { pinnedNode } from "./cpu-pinning.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Starts a TypeScript worker from bench/workers/ with plain node (as the provider itself runs), pinned to
 * `cpu`. Workers talk back with JSON lines on stdout; stderr is kept for error messages. Extra node flags
 * for the workers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile a ceiling the way
 * BENCH_PROVIDER_NODE_ARGS profiles the provider) go in BENCH_WORKER_NODE_ARGS.
 */
export function startWorker(cpu: number, script: string, args: readonly string[]): ChildProcess {
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(/\s+/).filter((a) => a !== "");
  const { command, args: pinned } = pinnedNode(cpu, [...nodeArgs, `bench/workers/${script}`, ...args]);
  return spawnTracked(command, pinned, { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] });
}

/** The first JSON line the worker prints; rejects with its stderr if it exits first. */
export function firstJsonLine<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    const onData = (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf("\n");
      if (newline < 0) return;
      child.stdout?.off("data", onData);
      child.off("close", onExit);
      try {
        resolve(JSON.parse(stdout.slice(0, newline)) as T);
      } catch (error) {
        reject(new Error(`${what}: unreadable output ${JSON.stringify(stdout.slice(0, 200))}: ${(error as Error).message}`));
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      reject(new Error(`${what} exited (${code ?? signal}) before reporting${stderr ? `:\n${stderr.trim()}` : ""}`));
    };
    child.stdout?.setEncoding("utf8").on("data", onData);
    // "close", not "exit": stdout may still hold the line when the process has exited.
    child.once("close", onExit);
    child.once("error", (error) => reject(new Error(`${what} could not start: ${error.message}`)));
  });
}

/** One of the bench's own servers (the bare node:http floor, a ceiling), running pinned on the server core. */
export interface RunningServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a server worker (it prints `{"port":N}` once listening; see workers/loopback-server.ts). */
export async function startServerWorker(cpu: number, script: string, what: string): Promise<RunningServer> {
  const child = startWorker(cpu, script, []);
  try {
    const { port } = await firstJsonLine<{ port: number }>(child, what);
    return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stop(child) };
  } catch (error) {
    await stop(child);
    throw error;
  }
}
