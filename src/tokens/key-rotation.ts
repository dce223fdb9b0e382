import type { KeyStatus } from "./key-set.ts";

/** A generated key as kept in the store (namespace `keys`, durable). */
export interface StoredKey {
  kid: string;
  status: KeyStatus;
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
  | { kind: "generate-next" }
  | { kind: "promote"; ring: KeyRing }
  | { kind: "prune"; ring: KeyRing };

/**
 * Decides the next lifecycle step for a generated key ring at time `now` (pure, so it is tested with
 * frozen clocks): announce a `next` key ahead of time, promote it when the current one has signed for
 * `rotateEvery`, and drop retired keys once nothing they signed can still be valid.
 */
export function nextRotationStep(ring: KeyRing, now: number, policy: RotationPolicy): RotationStep {
  const current = ring.keys.find((k) => k.status === "current");
  const next = ring.keys.find((k) => k.status === "next");
  if (!current) return { kind: "generate-next" };
  const signedFor = now - (current.activatedAt ?? current.createdAt);

  if (next && signedFor >= policy.rotateEvery && now - next.createdAt >= policy.announceFor) {
    return { kind: "promote", ring: promoted(ring, next, now) };
  }
  if (!next && signedFor >= policy.rotateEvery - policy.announceFor) return { kind: "generate-next" };

  const kept = ring.keys.filter((k) => k.status !== "retired" || now - (k.retiredAt ?? now) < policy.retainFor);
  const unpublished = ring.unpublished?.filter((u) => now - u.unpublishedAt < policy.retainFor);
  if (kept.length !== ring.keys.length || unpublished?.length !== ring.unpublished?.length) {
    return { kind: "prune", ring: { keys: kept, ...(unpublished?.length ? { unpublished } : {}) } };
  }
  return { kind: "none" };
}

/** The ring with `next` signing from `now` and the key that signed until then retired (published still, until pruned). */
export function promoted(ring: KeyRing, next: StoredKey, now: number): KeyRing {
  return {
    ...ring,
    keys: ring.keys.map(
      (k): StoredKey =>
        k.kid === next.kid
          ? { ...k, status: "current", activatedAt: now }
          : k.status === "current"
            ? { ...k, status: "retired", retiredAt: now }
            : k,
    ),
  };
}
