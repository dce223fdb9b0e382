import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

/**
 * CPU time (user + system, all threads) a process has used so far, from /proc/<pid>/stat. The bench
 * samples it around each recorded window: a server at ~100% of its core is saturated, so the number is
 * the server's limit and not the load generator's.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Field 2 (comm) may contain spaces and parentheses; everything after the last ")" is space-separated.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After comm, the state is field 3; utime and stime are fields 14 and 15 → indexes 11 and 12 here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / clockTicksPerSecond();
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
