import { describe, expect, it } from "vitest";
import { nextRotationStep, type KeyRing, type RotationPolicy } from "../../src/tokens/key-rotation.ts";

const DAY = 86_400_000;
const policy: RotationPolicy = { rotateEvery: 90 * DAY, announceFor: DAY, retainFor: DAY / 24 };
const key = (kid: string, status: "next" | "current" | "retired", createdAt: number, extra = {}) =>
  ({ kid, status, sealedPkcs8: "", createdAt, ...extra }) as KeyRing["keys"][number];
/** PS256 and ES256 keys that began signing at `at`: nothing of theirs is due near then, so the RS256 keys' lifecycle shows alone. */
const othersSince = (at: number) => [
  key("ps", "current", at, { alg: "PS256", activatedAt: at }),
  key("es", "current", at, { alg: "ES256", activatedAt: at }),
];
/** An RS256 ring (its keys without alg, as rings were written before there were others) beside young keys of the other algorithms. */
const ringOf = (at: number, ...keys: KeyRing["keys"]): KeyRing => ({ keys: [...keys, ...othersSince(at)] });

describe("key rotation lifecycle", () => {
  it("generates a current key of each algorithm for an empty ring, RS256 first", () => {
    expect(nextRotationStep({ keys: [] }, 0, policy)).toEqual({ kind: "generate-next", alg: "RS256" });
    const rs = key("a", "current", 0, { alg: "RS256", activatedAt: 0 });
    expect(nextRotationStep({ keys: [rs] }, 0, policy)).toEqual({ kind: "generate-next", alg: "PS256" });
    const ps = key("p", "current", 0, { alg: "PS256", activatedAt: 0 });
    expect(nextRotationStep({ keys: [rs, ps] }, 0, policy)).toEqual({ kind: "generate-next", alg: "ES256" });
    const es = key("e", "current", 0, { alg: "ES256", activatedAt: 0 });
    expect(nextRotationStep({ keys: [rs, ps, es] }, 0, policy)).toEqual({ kind: "none" });
  });

  it("gives a ring written before there were several algorithms the missing ones, leaving its RS256 keys as they are", () => {
    const legacy: KeyRing = {
      keys: [key("old", "retired", 0, { retiredAt: 10 * DAY }), key("a", "current", 5 * DAY, { activatedAt: 10 * DAY })],
    };
    expect(nextRotationStep(legacy, 10 * DAY, policy)).toEqual({ kind: "generate-next", alg: "PS256" });
    // Its keys carry no alg: they are RS256 keys, so RS256 is not generated again, and a PS256 key does not count for ES256.
    const withPs: KeyRing = { keys: [...legacy.keys, key("p", "current", 10 * DAY, { alg: "PS256", activatedAt: 10 * DAY })] };
    expect(nextRotationStep(withPs, 10 * DAY, policy)).toEqual({ kind: "generate-next", alg: "ES256" });
  });

  it("does nothing while the current key is young", () => {
    const ring = ringOf(0, key("a", "current", 0, { activatedAt: 0 }));
    expect(nextRotationStep(ring, 10 * DAY, policy)).toEqual({ kind: "none" });
  });

  it("announces the next key one announce period before rotation", () => {
    const ring = ringOf(50 * DAY, key("a", "current", 0, { activatedAt: 0 }));
    expect(nextRotationStep(ring, 89 * DAY - 1, policy).kind).toBe("none");
    expect(nextRotationStep(ring, 89 * DAY, policy)).toEqual({ kind: "generate-next", alg: "RS256" });
  });

  it("promotes next to current and retires the old key of the same algorithm once both periods have passed", () => {
    const ring = ringOf(50 * DAY, key("a", "current", 0, { activatedAt: 0 }), key("b", "next", 89 * DAY));
    expect(nextRotationStep(ring, 90 * DAY - 1, policy).kind).toBe("none");
    const step = nextRotationStep(ring, 90 * DAY, policy);
    expect(step.kind).toBe("promote");
    if (step.kind !== "promote") return;
    expect(step.ring.keys.map((k) => [k.kid, k.status])).toEqual([
      ["a", "retired"],
      ["b", "current"],
      ["ps", "current"],
      ["es", "current"],
    ]);
  });

  it("rotates each algorithm on its own schedule: an ES256 promotion retires only the ES256 key", () => {
    const ring: KeyRing = {
      keys: [
        key("a", "current", 0, { activatedAt: 50 * DAY }),
        key("ps", "current", 0, { alg: "PS256", activatedAt: 50 * DAY }),
        key("es", "current", 0, { alg: "ES256", activatedAt: 0 }),
        key("es2", "next", 89 * DAY, { alg: "ES256" }),
      ],
    };
    const step = nextRotationStep(ring, 90 * DAY, policy);
    expect(step.kind).toBe("promote");
    if (step.kind !== "promote") return;
    expect(Object.fromEntries(step.ring.keys.map((k) => [k.kid, k.status]))).toEqual({
      a: "current",
      ps: "current",
      es: "retired",
      es2: "current",
    });
  });

  it("waits for the announce period even when the current key is overdue", () => {
    const ring = ringOf(60 * DAY, key("a", "current", 0, { activatedAt: 0 }), key("b", "next", 100 * DAY));
    expect(nextRotationStep(ring, 100 * DAY + DAY / 2, policy).kind).toBe("none");
    expect(nextRotationStep(ring, 101 * DAY, policy).kind).toBe("promote");
  });

  it("keeps a retired key published until everything it signed has expired, then drops it", () => {
    const ring = ringOf(
      89 * DAY,
      key("a", "retired", 0, { retiredAt: 90 * DAY }),
      key("b", "current", 89 * DAY, { activatedAt: 90 * DAY }),
    );
    expect(nextRotationStep(ring, 90 * DAY + policy.retainFor - 1, policy).kind).toBe("none");
    const step = nextRotationStep(ring, 90 * DAY + policy.retainFor, policy);
    expect(step.kind === "prune" && step.ring.keys.map((k) => k.kid)).toEqual(["b", "ps", "es"]);
  });
});
