import { describe, expect, it } from "vitest";
import { ConcurrencyGate } from "../../src/security/concurrency-gate.ts";

/** A task that runs until released, recording how many run at once. */
function tracker() {
  let running = 0;
  let peak = 0;
  const releases: Array<() => void> = [];
  const task = () =>
    new Promise<string>((resolve) => {
      running++;
      peak = Math.max(peak, running);
      releases.push(() => {
        running--;
        resolve("done");
      });
    });
  return { task, releases, peak: () => peak, running: () => running };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("ConcurrencyGate", () => {
  it("runs at most `limit` tasks at once and the waiting ones in order", async () => {
    const gate = new ConcurrencyGate(2, 4);
    const t = tracker();
    const results = Array.from({ length: 6 }, () => gate.run(t.task));
    await tick();
    expect(t.running()).toBe(2);
    while (t.releases.length > 0 || t.running() > 0) {
      t.releases.shift()?.();
      await tick();
    }
    expect(await Promise.all(results)).toEqual(Array(6).fill("done"));
    expect(t.peak()).toBe(2);
  });

  it("refuses with 503 temporarily_unavailable once the line is full, and recovers", async () => {
    const gate = new ConcurrencyGate(1, 2);
    const t = tracker();
    const accepted = [gate.run(t.task), gate.run(t.task), gate.run(t.task)];
    await expect(gate.run(t.task)).rejects.toMatchObject({ status: 503, error: "temporarily_unavailable" });
    await tick();
    for (let i = 0; i < 3; i++) {
      t.releases.shift()!();
      await tick();
    }
    await Promise.all(accepted);
    const again = gate.run(t.task);
    await tick();
    t.releases.shift()!();
    expect(await again).toBe("done");
  });

  it("frees the slot when a task fails", async () => {
    const gate = new ConcurrencyGate(1, 1);
    await expect(gate.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => "ok")).toBe("ok");
  });
});
