import { describe, expect, it } from "vitest";
import { retireKey, rotateRing, unpublishKey, type GenerateKey } from "../../src/tokens/key-ring-actions.ts";
import type { KeyRing, StoredKey } from "../../src/tokens/key-rotation.ts";

const DAY = 86_400_000;
let made = 0;
/** Stand-in keys: the actions only move kids between states; sealing is KeyRingStore's (tested with the manager). */
const generate: GenerateKey = async (alg, status, now) => ({
  kid: `k${++made}`,
  status,
  alg,
  sealedPkcs8: "sealed",
  createdAt: now,
  ...(status === "current" ? { activatedAt: now } : {}),
});
const key = (kid: string, status: StoredKey["status"], createdAt: number, extra: Partial<StoredKey> = {}): StoredKey => ({
  kid,
  status,
  sealedPkcs8: "sealed",
  createdAt,
  ...extra,
});
const statuses = (ring: KeyRing) => Object.fromEntries(ring.keys.map((k) => [k.kid, k.status]));

const onlyCurrent: KeyRing = { keys: [key("a", "current", 0, { activatedAt: 0 })] };
const withNext = (createdAt: number): KeyRing => ({ keys: [...onlyCurrent.keys, key("b", "next", createdAt)] });

describe("operator key ring actions", () => {
  it("rotate without a next key only announces one", async () => {
    const outcome = await rotateRing(onlyCurrent, { alg: "RS256", now: 5 * DAY, announceFor: DAY, force: false, generate });
    expect(outcome.kind).toBe("announced");
    if (outcome.kind !== "announced") return;
    expect(statuses(outcome.ring)).toEqual({ a: "current", [outcome.next.kid]: "next" });
  });

  it("rotate refuses a next key published for less than announce_for, and promotes one published long enough", async () => {
    const early = await rotateRing(withNext(5 * DAY), { alg: "RS256", now: 5 * DAY + 1000, announceFor: DAY, force: false, generate });
    expect(early).toMatchObject({ kind: "too-early", publishedFor: 1000 });

    const due = await rotateRing(withNext(5 * DAY), { alg: "RS256", now: 6 * DAY, announceFor: DAY, force: false, generate });
    expect(due.kind).toBe("rotated");
    if (due.kind !== "rotated") return;
    expect(statuses(due.ring)).toEqual({ a: "retired", b: "current", [due.next.kid]: "next" });
    expect(due.retired).toMatchObject({ kid: "a", retiredAt: 6 * DAY });
    expect(due.current).toMatchObject({ kid: "b", activatedAt: 6 * DAY });
    expect(due.forced).toBe(false);
  });

  it("rotate --now promotes at once, generating the key when there is no next one", async () => {
    const early = await rotateRing(withNext(5 * DAY), { alg: "RS256", now: 5 * DAY + 1000, announceFor: DAY, force: true, generate });
    expect(early).toMatchObject({ kind: "rotated", current: { kid: "b" }, forced: true });

    const none = await rotateRing(onlyCurrent, { alg: "RS256", now: DAY, announceFor: DAY, force: true, generate });
    expect(none.kind).toBe("rotated");
    if (none.kind !== "rotated") return;
    expect(none.ring.keys.filter((k) => k.status === "current")).toEqual([none.current]);
    expect(none.retired.kid).toBe("a");
    expect(none.ring.keys.filter((k) => k.status === "next")).toEqual([none.next]);
  });

  it("retire refuses the only signing key, an unknown kid and a retired key", async () => {
    expect(await retireKey(onlyCurrent, "a", { now: DAY, generate })).toEqual({ kind: "only-signing-key" });
    expect(await retireKey(onlyCurrent, "zz", { now: DAY, generate })).toEqual({ kind: "unknown-kid" });
    const ring: KeyRing = { keys: [...onlyCurrent.keys, key("old", "retired", 0, { retiredAt: 0 })] };
    expect(await retireKey(ring, "old", { now: DAY, generate })).toEqual({ kind: "already-retired" });
  });

  it("retire of the current key hands signing to the next key; of the next key, just retires it", async () => {
    const current = await retireKey(withNext(5 * DAY), "a", { now: 5 * DAY + 1000, generate });
    expect(current.kind).toBe("retired");
    if (current.kind !== "retired") return;
    expect(statuses(current.ring)).toEqual({ a: "retired", b: "current", [current.next!.kid]: "next" });

    const next = await retireKey(withNext(5 * DAY), "b", { now: 6 * DAY, generate });
    expect(next.kind).toBe("retired");
    if (next.kind !== "retired") return;
    expect(statuses(next.ring)).toEqual({ a: "current", b: "retired" });
    expect(next.promoted).toBeUndefined();
  });

  it("unpublish removes the key from the ring and remembers its kid; a signing key hands over first", async () => {
    const current = await unpublishKey(withNext(5 * DAY), "a", { now: 6 * DAY, generate });
    expect(current.kind).toBe("retired");
    if (current.kind !== "retired") return;
    expect(current.ring.keys.map((k) => k.kid)).not.toContain("a");
    // Its dates stay with it, for `keys list`: created, activated, retired (as it was unpublished).
    expect(current.ring.unpublished).toEqual([
      { kid: "a", alg: "RS256", createdAt: 0, activatedAt: 0, retiredAt: 6 * DAY, unpublishedAt: 6 * DAY },
    ]);
    expect(statuses(current.ring)).toEqual({ b: "current", [current.next!.kid]: "next" });

    const ring: KeyRing = { keys: [...onlyCurrent.keys, key("old", "retired", 0, { retiredAt: 0 })] };
    const retired = await unpublishKey(ring, "old", { now: DAY, generate });
    expect(retired).toMatchObject({
      kind: "retired",
      ring: { keys: onlyCurrent.keys, unpublished: [{ kid: "old", alg: "RS256", createdAt: 0, retiredAt: 0, unpublishedAt: DAY }] },
    });
    expect(await unpublishKey(onlyCurrent, "a", { now: DAY, generate })).toEqual({ kind: "only-signing-key" });
  });

  describe("with keys of several algorithms (a ring from before alg was recorded: its keys are RS256)", () => {
    const mixed = (): KeyRing => ({
      keys: [
        key("rs", "current", 0, { activatedAt: 0 }),
        key("rs-next", "next", 4 * DAY),
        key("es", "current", 0, { alg: "ES256", activatedAt: 0 }),
        key("es-next", "next", 4 * DAY, { alg: "ES256" }),
        key("ps", "current", 0, { alg: "PS256", activatedAt: 0 }),
      ],
    });

    it("rotate turns over the named algorithm's keys only, and generates the fresh next key of that algorithm", async () => {
      const outcome = await rotateRing(mixed(), { alg: "ES256", now: 6 * DAY, announceFor: DAY, force: false, generate });
      expect(outcome.kind).toBe("rotated");
      if (outcome.kind !== "rotated") return;
      expect(statuses(outcome.ring)).toEqual({
        rs: "current",
        "rs-next": "next",
        es: "retired",
        "es-next": "current",
        ps: "current",
        [outcome.next.kid]: "next",
      });
      expect(outcome.next.alg).toBe("ES256");

      const ps = await rotateRing(mixed(), { alg: "PS256", now: 6 * DAY, announceFor: DAY, force: false, generate });
      expect(ps.kind).toBe("announced");
      if (ps.kind !== "announced") return;
      expect(ps.next.alg).toBe("PS256");
      expect(statuses(ps.ring)).toMatchObject({ rs: "current", es: "current", ps: "current", [ps.next.kid]: "next" });
    });

    it("retire hands signing to the next key of the retired key's algorithm, never another algorithm's", async () => {
      const es = await retireKey(mixed(), "es", { now: 6 * DAY, generate });
      expect(es).toMatchObject({ kind: "retired", promoted: { kid: "es-next", alg: "ES256" }, next: { alg: "ES256" } });
      if (es.kind !== "retired") return;
      expect(statuses(es.ring)).toMatchObject({ rs: "current", "rs-next": "next", es: "retired", "es-next": "current" });

      // PS256 has no next key: the RS256 one must not take over.
      expect(await retireKey(mixed(), "ps", { now: 6 * DAY, generate })).toEqual({ kind: "only-signing-key" });
    });
  });
});
