import type { KeyRing, StoredKey } from "../../tokens/key-rotation.ts";
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
 * The ring as a table, newest lifecycle first (next, current, retired), then the keys an operator took
 * out of the JWKS (`keys retire --unpublish`), which the ring remembers until nothing they signed can be
 * valid: an operator who unpublished a key sees that it is out. Every other key in the ring is in the
 * JWKS; a retired one until `retainFor` after its retirement, when the nodes prune it. Only kids, states
 * and times: no key material.
 */
export function formatKeyRing(ring: KeyRing, retainFor: number, now: number): string {
  const order = { next: 0, current: 1, retired: 2 } as const;
  const keys = [...ring.keys].sort((a, b) => order[a.status] - order[b.status] || b.createdAt - a.createdAt);
  const rows = keys.map((k) => [k.kid, k.status, iso(k.createdAt), iso(k.activatedAt), iso(k.retiredAt), published(k, retainFor, now)]);
  const unpublished = [...(ring.unpublished ?? [])].sort((a, b) => b.unpublishedAt - a.unpublishedAt);
  for (const u of unpublished) {
    rows.push([
      u.kid,
      "unpublished",
      iso(u.createdAt),
      iso(u.activatedAt),
      iso(u.retiredAt ?? u.unpublishedAt),
      `no, since ${iso(u.unpublishedAt)} (taken out of the JWKS: what it signed no longer verifies)`,
    ]);
  }
  return table([["KID", "STATUS", "CREATED", "ACTIVATED", "RETIRED", "PUBLISHED"], ...rows]);
}

function published(k: StoredKey, retainFor: number, now: number): string {
  if (k.status !== "retired") return k.status === "next" ? "yes (ahead of use)" : "yes";
  const until = (k.retiredAt ?? now) + retainFor;
  return until > now ? `yes, until ${iso(until)}` : "until the next sync (expired)";
}

/** keys.static of provider.yaml: what the provider signs with, as configured. */
export function formatStaticKeys(keys: readonly StaticKey[]): string {
  return table([["KID", "STATUS", "SOURCE"], ...keys.map((k) => [k.kid, k.status, "provider.yaml keys.static"])]);
}
