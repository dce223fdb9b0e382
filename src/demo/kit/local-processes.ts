import { accessSync, constants } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";

/**
 * What starting a local server as a child process takes: a free loopback port, the program on PATH, a
 * wait until it answers and a stop that cannot hang. The demo directory (src/demo/directory/) uses them,
 * and the tests' own servers (test/support/services.ts) the same ones.
 */

/** A loopback TCP port nothing listens on (at the time of asking). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

/** The executable `name` in a folder of `path` (the PATH variable's value), if there is one. */
export function findOnPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Polls `check` every 50 ms until it answers true; fails when `child` exits first, or after 10 s. */
export async function waitFor(check: () => Promise<boolean>, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not answer within 10 s`);
}

/** SIGTERM, then SIGKILL if the child has not exited 5 s later; resolves once it has exited. */
export async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}
