import { spawn, type ChildProcess } from "node:child_process";
import type { Worker } from "node:cluster";
import { afterAll, describe, expect, it } from "vitest";
import { forwardSignal } from "../../src/cluster/forward-signal.ts";
import { eventually } from "../support/start-process.ts";

/** A process that reports each SIGHUP on stdout instead of dying of it, as a worker that reloads does. */
function reloader(): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [
    "-e",
    'process.on("SIGHUP", () => console.log("hup")); console.log("ready"); setInterval(() => {}, 1000);',
  ]);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  return { child, output: () => output };
}

const asWorker = (child: ChildProcess, dead = false) => ({ isDead: () => dead, process: child }) as unknown as Worker;

describe("forwarding SIGHUP to the workers", () => {
  const processes = [reloader(), reloader(), reloader()];
  afterAll(() => processes.forEach((p) => p.child.kill("SIGKILL")));

  it("sends the signal to every live worker and skips a dead one", async () => {
    for (const p of processes) await eventually(() => p.output().includes("ready"), "the process to start");
    const [a, b, gone] = processes;
    const sent = forwardSignal({ 1: asWorker(a!.child), 2: asWorker(b!.child), 3: asWorker(gone!.child, true), 4: undefined }, "SIGHUP");
    expect(sent).toBe(2);
    await eventually(() => a!.output().includes("hup") && b!.output().includes("hup"), "both live workers to get SIGHUP");
    expect(gone!.output()).not.toContain("hup");
    expect(forwardSignal(undefined, "SIGHUP")).toBe(0);
  });
});
