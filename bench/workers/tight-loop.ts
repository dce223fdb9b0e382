import { sampleCore, sampleCpu } from "../process-cpu.ts";

/** One sample of a floor measured as a tight loop on one core (RS256 signatures, scrypt hashes). */
export interface LoopSample {
  operations: number;
  seconds: number;
  perSecond: number;
  /** Operations per second of this process's CPU time: what the core could do if nothing else ran on it. */
  perCpuSecond: number;
  /** Share of the window other processes or the hypervisor took the core; perCpuSecond does not depend on it. */
  coreTaken: number;
}

/**
 * Runs `operation` in a loop for `warmupSeconds` (thrown away), then for `seconds` while sampling this
 * process's CPU and its core's, and prints one LoopSample as a JSON line.
 */
export function measureLoop(operation: () => void, warmupSeconds: number, seconds: number, cpu: number): void {
  loopFor(operation, warmupSeconds);
  const before = sampleCpu(process.pid);
  const coreBefore = sampleCore(cpu);
  const measured = loopFor(operation, seconds);
  const after = sampleCpu(process.pid);
  const coreAfter = sampleCore(cpu);
  const ownSeconds = after.cpuSeconds - before.cpuSeconds;
  const takenSeconds = coreAfter.busySeconds - coreBefore.busySeconds - ownSeconds + (coreAfter.stealSeconds - coreBefore.stealSeconds);
  const sample: LoopSample = {
    ...measured,
    perSecond: measured.operations / measured.seconds,
    perCpuSecond: measured.operations / ownSeconds,
    coreTaken: Math.max(0, takenSeconds) / measured.seconds,
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}

function loopFor(operation: () => void, limitSeconds: number): { operations: number; seconds: number } {
  const start = process.hrtime.bigint();
  const limit = BigInt(Math.round(limitSeconds * 1e9));
  let operations = 0;
  let elapsed = 0n;
  while (elapsed < limit) {
    operation();
    operations++;
    elapsed = process.hrtime.bigint() - start;
  }
  return { operations, seconds: Number(elapsed) / 1e9 };
}
