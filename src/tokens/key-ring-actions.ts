import type { SigningAlg } from "../crypto/signing-alg.ts";
import type { KeyStatus } from "./key-set.ts";
import { algOf, keyOf, promoted, type KeyRing, type StoredKey, type UnpublishedKey } from "./key-rotation.ts";

/** Makes a fresh sealed key (KeyRingStore.generate). */
export type GenerateKey = (alg: SigningAlg, status: KeyStatus, now: number) => Promise<StoredKey>;

export type RotateOutcome =
  /** There was no next key: one is generated and published; it may sign once announced for `announceFor`. */
  | { kind: "announced"; ring: KeyRing; next: StoredKey }
  /** The next key has been published for less than `announceFor`: nothing changed. */
  | { kind: "too-early"; next: StoredKey; publishedFor: number }
  /** `current` signs from now, `retired` is still published, and a fresh `next` is published ahead of the following rotation. */
  | { kind: "rotated"; ring: KeyRing; current: StoredKey; retired: StoredKey; next: StoredKey; forced: boolean };

export type RetireOutcome =
  | { kind: "unknown-kid" }
  | { kind: "already-retired" }
  /** The key signs and no next key could take over: retiring it would leave nothing to sign with. */
  | { kind: "only-signing-key" }
  /** `promoted`: the next key that took over the signing (when the retired key was the current one). */
  | { kind: "retired"; ring: KeyRing; retired: StoredKey; promoted?: StoredKey; next?: StoredKey };

/**
 * The operator's rotation (`portcullis keys rotate`): the next key, published ahead of use, signs from
 * now on, the current one retires, and a fresh next key is published so the following rotation again
 * has a key that relying parties' JWKS caches already know. Without a next key, one is only announced:
 * promoting a key nobody has fetched yet would make every relying party with a cached JWKS reject the
 * new tokens until it refetches. `force` (`--now`) promotes at once anyway, generating the key if needed.
 * Each algorithm's keys rotate apart: `alg` names the one rotated.
 */
export async function rotateRing(
  ring: KeyRing,
  options: { alg: SigningAlg; now: number; announceFor: number; force: boolean; generate: GenerateKey },
): Promise<RotateOutcome> {
  const { alg, now, announceFor, force } = options;
  const generate = (status: KeyStatus, at: number) => options.generate(alg, status, at);
  const current = signingKey(ring, alg);
  let next = keyOf(ring, alg, "next");
  if (!next && !force) {
    next = await generate("next", now);
    return { kind: "announced", ring: { ...ring, keys: [...ring.keys, next] }, next };
  }
  if (next && !force && now - next.createdAt < announceFor) return { kind: "too-early", next, publishedFor: now - next.createdAt };
  if (!next) {
    next = await generate("next", now);
    ring = { ...ring, keys: [...ring.keys, next] };
  }
  const fresh = await generate("next", now);
  const rotated = promoted({ ...ring, keys: [...ring.keys, fresh] }, next, now);
  return {
    kind: "rotated",
    ring: rotated,
    current: byKid(rotated, next.kid),
    retired: byKid(rotated, current.kid),
    next: fresh,
    forced: force,
  };
}

/**
 * Retires one key early (`portcullis keys retire KID`), e.g. when it may be compromised: it signs
 * nothing more, and stays published until what it signed has expired (the manager prunes it then).
 * Retiring the current key hands the signing to the next key at once, and publishes a fresh next key;
 * without a next key it is refused, since the deployment would have no key to sign with. The key's own
 * algorithm's next key takes over: keys of one algorithm never stand in for another's.
 */
export async function retireKey(ring: KeyRing, kid: string, options: { now: number; generate: GenerateKey }): Promise<RetireOutcome> {
  const { now, generate } = options;
  const key = ring.keys.find((k) => k.kid === kid);
  if (!key) return { kind: "unknown-kid" };
  if (key.status === "retired") return { kind: "already-retired" };
  if (key.status === "next") {
    const retired: StoredKey = { ...key, status: "retired", retiredAt: now };
    return { kind: "retired", ring: { ...ring, keys: ring.keys.map((k) => (k.kid === kid ? retired : k)) }, retired };
  }
  const next = keyOf(ring, algOf(key), "next");
  if (!next) return { kind: "only-signing-key" };
  const fresh = await generate(algOf(key), "next", now);
  const after = promoted({ ...ring, keys: [...ring.keys, fresh] }, next, now);
  return { kind: "retired", ring: after, retired: byKid(after, kid), promoted: byKid(after, next.kid), next: fresh };
}

/**
 * Takes a key out of the JWKS at once (`portcullis keys retire KID --unpublish`), for a key that may be
 * compromised: what it signed (or a thief signs with it) stops verifying at the nodes' next sync. As
 * retire, a signing key hands over to the next key first; a retired key can be unpublished too. The kid
 * is remembered as unpublished, so a node that still holds the key does not write it back as lost.
 */
export async function unpublishKey(ring: KeyRing, kid: string, options: { now: number; generate: GenerateKey }): Promise<RetireOutcome> {
  const key = ring.keys.find((k) => k.kid === kid);
  const outcome = key?.status === "retired" ? ({ kind: "retired", ring, retired: key } as const) : await retireKey(ring, kid, options);
  if (outcome.kind !== "retired") return outcome;
  const { createdAt, activatedAt, retiredAt } = outcome.retired;
  const record: UnpublishedKey = {
    kid,
    alg: algOf(outcome.retired),
    createdAt,
    ...(activatedAt !== undefined && { activatedAt }),
    ...(retiredAt !== undefined && { retiredAt }),
    unpublishedAt: options.now,
  };
  const unpublished = [...(outcome.ring.unpublished ?? []), record];
  return { ...outcome, ring: { ...outcome.ring, keys: outcome.ring.keys.filter((k) => k.kid !== kid), unpublished } };
}

function signingKey(ring: KeyRing, alg: SigningAlg): StoredKey {
  const current = keyOf(ring, alg, "current");
  if (!current) throw new Error(`the stored key ring has no current ${alg} key`);
  return current;
}

const byKid = (ring: KeyRing, kid: string) => ring.keys.find((k) => k.kid === kid)!;
