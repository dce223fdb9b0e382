import { SIGNING_ALGS } from "../../crypto/signing-alg.ts";
import { staticKeyAlg } from "../../config/static-key-alg.ts";
import { algOf, type KeyRing, type StoredKey } from "../../tokens/key-rotation.ts";
import type { StaticKey } from "../../tokens/key-manager.ts";
import { table } from "../support/text-table.ts";

const iso = (ms: number | undefined) => (ms === undefined ? "-" : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));

/** "1d 2h", "5m", "40s": how long, for an operator. */
export function formatSpan(ms: number): string {
  const parts: string[] = [];
  let seconds = Math.max(0, Math.round(ms / 1000));
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (seconds >= size || (unit === "s" && parts.length === 0)) parts.push(`${Math.floor(seconds / size)}${unit}`);
    seconds %= size;
  }
  return parts.slice(0, 2).join(" ");
}

export const formatTime = iso;

/**
 * The ring as a table, one algorithm after the other (RS256, PS256, ES256: each signs and rotates with
 * keys of its own), within each the newest lifecycle first (next, current, retired), then the keys an operator took
 * out of the JWKS (`keys retire --unpublish`), which the ring remembers until nothing they signed can be
 * valid: an operator who unpublished a key sees that it is out. Every other key in the ring is in the
 * JWKS; a retired one until `retainFor` after its retirement, when the nodes prune it. Only kids, states
 * and times: no key material.
 */
export function formatKeyRing(ring: KeyRing, retainFor: number, now: number): string {
  const order = { next: 0, current: 1, retired: 2 } as const;
  const rank = (k: StoredKey) => SIGNING_ALGS.indexOf(algOf(k));
  const keys = [...ring.keys].sort((a, b) => rank(a) - rank(b) || order[a.status] - order[b.status] || b.createdAt - a.createdAt);
  const rows = keys.map((k) => [
    k.kid,
    algOf(k),
    k.status,
    iso(k.createdAt),
    iso(k.activatedAt),
    iso(k.retiredAt),
    published(k, retainFor, now),
  ]);
  const unpublished = [...(ring.unpublished ?? [])].sort((a, b) => b.unpublishedAt - a.unpublishedAt);
  for (const u of unpublished) {
    rows.push([
      u.kid,
      u.alg ?? "-",
      "unpublished",
      iso(u.createdAt),
      iso(u.activatedAt),
      iso(u.retiredAt ?? u.unpublishedAt),
      `no, since ${iso(u.unpublishedAt)} (taken out of the JWKS: what it signed no longer verifies)`,
    ]);
  }
  return table([["KID", "ALG", "STATUS", "CREATED", "ACTIVATED", "RETIRED", "PUBLISHED"], ...rows]);
}

function published(k: StoredKey, retainFor: number, now: number): string {
  if (k.status !== "retired") return k.status === "next" ? "yes (ahead of use)" : "yes";
  const until = (k.retiredAt ?? now) + retainFor;
  return until > now ? `yes, until ${iso(until)}` : "until the next sync (expired)";
}

/** keys.static of provider.yaml: what the provider signs with, as configured (the alg declared, else the one the key's type signs). */
export function formatStaticKeys(keys: readonly StaticKey[]): string {
  return table([
    ["KID", "ALG", "STATUS", "SOURCE"],
    ...keys.map((k) => [k.kid, staticKeyAlg(k) ?? "?", k.status, "provider.yaml keys.static"]),
  ]);
}
