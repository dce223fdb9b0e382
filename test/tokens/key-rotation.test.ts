import { describe, expect, it } from "vitest";
import { nextRotationStep, type KeyRing, type RotationPolicy } from "../../src/tokens/key-rotation.ts";

const DAY = 86_400_000;
const policy: RotationPolicy = { rotateEvery: 90 * DAY, announceFor: DAY, retainFor: DAY / 24 };
const key = (kid: string, status: "next" | "current" | "retired", createdAt: number, extra = {}) =>
  ({ kid, status, sealedPkcs8: "", createdAt, ...extra }) as KeyRing["keys"][number];

describe("key rotation lifecycle", () => {
  it("generates a current key for an empty ring", () => {
    expect(nextRotationStep({ keys: [] }, 0, policy).kind).toBe("generate-next");
  });

  it("does nothing while the current key is young", () => {
    const ring = { keys: [key("a", "current", 0, { activatedAt: 0 })] };
    expect(nextRotationStep(ring, 10 * DAY, policy)).toEqual({ kind: "none" });
  });

  it("announces the next key one announce period before rotation", () => {
    const ring = { keys: [key("a", "current", 0, { activatedAt: 0 })] };
    expect(nextRotationStep(ring, 89 * DAY - 1, policy).kind).toBe("none");
    expect(nextRotationStep(ring, 89 * DAY, policy).kind).toBe("generate-next");
  });

  it("promotes next to current and retires the old key once both periods have passed", () => {
    const ring = { keys: [key("a", "current", 0, { activatedAt: 0 }), key("b", "next", 89 * DAY)] };
    expect(nextRotationStep(ring, 90 * DAY - 1, policy).kind).toBe("none");
    const step = nextRotationStep(ring, 90 * DAY, policy);
    expect(step.kind).toBe("promote");
    if (step.kind !== "promote") return;
    expect(step.ring.keys.map((k) => [k.kid, k.status])).toEqual([
      ["a", "retired"],
      ["b", "current"],
    ]);
  });

  it("waits for the announce period even when the current key is overdue", () => {
    const ring = { keys: [key("a", "current", 0, { activatedAt: 0 }), key("b", "next", 100 * DAY)] };
    expect(nextRotationStep(ring, 100 * DAY + DAY / 2, policy).kind).toBe("none");
    expect(nextRotationStep(ring, 101 * DAY, policy).kind).toBe("promote");
  });

  it("keeps a retired key published until everything it signed has expired, then drops it", () => {
    const ring = { keys: [key("a", "retired", 0, { retiredAt: 90 * DAY }), key("b", "current", 89 * DAY, { activatedAt: 90 * DAY })] };
    expect(nextRotationStep(ring, 90 * DAY + policy.retainFor - 1, policy).kind).toBe("none");
    const step = nextRotationStep(ring, 90 * DAY + policy.retainFor, policy);
    expect(step.kind === "prune" && step.ring.keys.map((k) => k.kid)).toEqual(["b"]);
  });
});
