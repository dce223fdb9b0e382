import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

/**
 * How a process used its core, from /proc. The bench samples the server around each recorded window:
 * - cpuSeconds: CPU time (user + system, all threads) from /proc/<pid>/stat. A server at ~100% of its
 *   core is saturated, so the number is the server's limit and not the load generator's.
 * - waitSeconds: time its main thread was runnable but waiting for the core, from /proc/<pid>/schedstat:
 *   the core was busy with something else — other processes, or the server's own V8 helper threads
 *   (GC, compiler), which are pinned to the same core.
 */
export interface CpuSample {
  cpuSeconds: number;
  waitSeconds: number;
}

export function sampleCpu(pid: number): CpuSample {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Field 2 (comm) may contain spaces and parentheses; everything after the last ")" is space-separated.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After comm, the state is field 3; utime and stime are fields 14 and 15 → indexes 11 and 12 here.
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond();
  // schedstat: time on the CPU (ns), time waiting on a run queue (ns), timeslices.
  const schedstat = readFileSync(`/proc/${pid}/schedstat`, "utf8").trim().split(" ");
  return { cpuSeconds, waitSeconds: Number(schedstat[1]) / 1e9 };
}

/**
 * CPU time of a process and its direct children (a cluster's primary and its workers), from /proc: with
 * several workers no single pid's time is the server's.
 */
export function processTreeCpuSeconds(pid: number): number {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // No children file (old kernel): the process alone.
  }
  return [pid, ...children].reduce((sum, p) => {
    try {
      return sum + sampleCpu(p).cpuSeconds;
    } catch {
      return sum; // exited meanwhile
    }
  }, 0);
}

/**
 * How one core spent its time so far, from /proc/stat: busy (user, nice, system, irq, softirq) and
 * steal (taken by the hypervisor). Busy time minus the server's own CPU time is what other processes
 * used on the server's core: pinning keeps the bench's processes apart, not other people's.
 */
export interface CoreSample {
  busySeconds: number;
  stealSeconds: number;
}

export function sampleCore(cpu: number): CoreSample {
  const line = readFileSync("/proc/stat", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`cpu${cpu} `));
  if (!line) throw new Error(`/proc/stat has no line for cpu${cpu}`);
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const tick = clockTicksPerSecond();
  return {
    busySeconds: ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) / tick,
    stealSeconds: (steal ?? 0) / tick,
  };
}

let ticks: number | undefined;

function clockTicksPerSecond(): number {
  if (ticks === undefined) {
    const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
    const parsed = Number(out.stdout?.trim());
    ticks = Number.isInteger(parsed) && parsed > 0 ? parsed : 100;
  }
  return ticks;
}
