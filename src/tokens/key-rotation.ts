import { DEFAULT_SIGNING_ALG, SIGNING_ALGS, type SigningAlg } from "../crypto/signing-alg.ts";
import type { KeyStatus } from "./key-set.ts";

/** A generated key as kept in the store (namespace `keys`, durable). */
export interface StoredKey {
  kid: string;
  status: KeyStatus;
  /** The one algorithm the key signs; absent in rings written before there were others, whose keys all sign RS256 (algOf). */
  alg?: SigningAlg;
  /** The PKCS#8 PEM sealed by the SecretBox with context `signing-key:<kid>`. */
  sealedPkcs8: string;
  createdAt: number;
  activatedAt?: number;
  retiredAt?: number;
}

export interface KeyRing {
  keys: StoredKey[];
  /**
   * Keys an operator took out of the JWKS (`keys retire --unpublish`, a suspected compromise), until
   * nothing they signed can be valid: a node that still holds one must not write it back as lost.
   */
  unpublished?: UnpublishedKey[];
}

/** An unpublished key's kid and its dates (no key material); the dates are absent in rings written before they were kept. */
export interface UnpublishedKey {
  kid: string;
  /** Absent in rings written before keys recorded one. */
  alg?: SigningAlg;
  createdAt?: number;
  activatedAt?: number;
  retiredAt?: number;
  unpublishedAt: number;
}

export interface RotationPolicy {
  /** ms a key signs before the next one takes over. */
  rotateEvery: number;
  /** ms a key is published as `next` before it signs. */
  announceFor: number;
  /** ms a retired key stays published: the longest lifetime of anything it signed. */
  retainFor: number;
}

export type RotationStep =
  | { kind: "none" }
  | { kind: "generate-next"; alg: SigningAlg }
  | { kind: "promote"; ring: KeyRing }
  | { kind: "prune"; ring: KeyRing };

/** The algorithm a stored key signs: RS256 for a key stored before keys recorded one. */
export const algOf = (key: Pick<StoredKey, "alg">): SigningAlg => key.alg ?? DEFAULT_SIGNING_ALG;

/** The ring's key of `alg` in `status` (at most one is current, and one next, per algorithm). */
export const keyOf = (ring: KeyRing, alg: SigningAlg, status: KeyStatus): StoredKey | undefined =>
  ring.keys.find((k) => k.status === status && algOf(k) === alg);

/**
 * Decides the next lifecycle step for a generated key ring at time `now` (pure, so it is tested with
 * frozen clocks). Each algorithm has its own current key and runs the same lifecycle: announce a `next`
 * key ahead of time, promote it when the current one has signed for `rotateEvery`; an algorithm with no
 * key yet (a first start, or a ring written before there were several) gets one that signs at once.
 * Retired keys of every algorithm are dropped once nothing they signed can still be valid.
 */
export function nextRotationStep(ring: KeyRing, now: number, policy: RotationPolicy): RotationStep {
  for (const alg of SIGNING_ALGS) {
    const step = nextStepOf(ring, alg, now, policy);
    if (step.kind !== "none") return step;
  }
  const kept = ring.keys.filter((k) => k.status !== "retired" || now - (k.retiredAt ?? now) < policy.retainFor);
  const unpublished = ring.unpublished?.filter((u) => now - u.unpublishedAt < policy.retainFor);
  if (kept.length !== ring.keys.length || unpublished?.length !== ring.unpublished?.length) {
    return { kind: "prune", ring: { keys: kept, ...(unpublished?.length ? { unpublished } : {}) } };
  }
  return { kind: "none" };
}

/** One algorithm's due generation or promotion, if any. */
function nextStepOf(ring: KeyRing, alg: SigningAlg, now: number, policy: RotationPolicy): RotationStep {
  const current = keyOf(ring, alg, "current");
  const next = keyOf(ring, alg, "next");
  if (!current) return { kind: "generate-next", alg };
  const signedFor = now - (current.activatedAt ?? current.createdAt);
  if (next && signedFor >= policy.rotateEvery && now - next.createdAt >= policy.announceFor) {
    return { kind: "promote", ring: promoted(ring, next, now) };
  }
  if (!next && signedFor >= policy.rotateEvery - policy.announceFor) return { kind: "generate-next", alg };
  return { kind: "none" };
}

/** The ring with `next` signing from `now` and the key of its algorithm that signed until then retired (published still, until pruned). */
export function promoted(ring: KeyRing, next: StoredKey, now: number): KeyRing {
  return {
    ...ring,
    keys: ring.keys.map(
      (k): StoredKey =>
        k.kid === next.kid
          ? { ...k, status: "current", activatedAt: now }
          : k.status === "current" && algOf(k) === algOf(next)
            ? { ...k, status: "retired", retiredAt: now }
            : k,
    ),
  };
}
