import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { POSTGRES_OPERATION_TIMEOUT_MS } from "../../src/stores/postgres-store.ts";
import { REDIS_OPERATION_TIMEOUT_MS } from "../../src/stores/redis-store.ts";
import { MAX_AGE_S, SKEW_S } from "../../src/oauth/dpop/dpop-proofs.ts";
import { STEP_MS } from "../../src/oauth/dpop/dpop-nonces.ts";
import { FAPI2_MAX_CODE_LIFETIME_S, FAPI2_MAX_REQUEST_URI_LIFETIME_S } from "../../src/config/fapi2-profile.ts";

/**
 * Numbers the docs state, held to the constants of the code they describe, so a change to either shows
 * here. Each case names the doc, a pattern whose first group is the number as written, and the value
 * the code has (in the unit the doc writes). Add a case when a doc states a number the code decides.
 */
const ROOT = resolve(import.meta.dirname, "../..");

function stated(doc: string, pattern: RegExp): number {
  const match = pattern.exec(readFileSync(resolve(ROOT, doc), "utf8"));
  expect(match, `${doc} no longer says ${pattern}: reword the pattern with the doc`).not.toBeNull();
  return Number(match![1]);
}

const seconds = (ms: number) => ms / 1000;

describe("numbers in the docs", () => {
  it.each<[string, string, RegExp, number]>([
    [
      "a frozen Redis",
      "docs/security.md",
      /StoreUnavailableError` within the store's operation timeout: ([\d.]+) s on Redis/,
      seconds(REDIS_OPERATION_TIMEOUT_MS),
    ],
    [
      "a frozen PostgreSQL",
      "docs/security.md",
      /operation timeout: [\d.]+ s on Redis, ([\d.]+) s on PostgreSQL/,
      seconds(POSTGRES_OPERATION_TIMEOUT_MS),
    ],
    [
      "no Redis primary known",
      "docs/stores.md",
      /503 `temporarily_unavailable` within about ([\d.]+) s \(the store's\s+operation timeout\)/,
      seconds(REDIS_OPERATION_TIMEOUT_MS),
    ],
    ["a DPoP proof's age", "docs/dpop.md", /`iat` no more than (\d+) seconds old/, MAX_AGE_S],
    ["a DPoP proof's clock skew", "docs/dpop.md", /with (\d+)\s+seconds of clock difference allowed/, SKEW_S],
    ["a DPoP nonce's step", "docs/dpop.md", /HMAC of the current (\d+)-minute\s+time step/, STEP_MS / 60_000],
    ["a FAPI 2.0 code's lifetime", "docs/fapi2.md", /`lifetimes.authorization_code` \| `(\d+)s`/, FAPI2_MAX_CODE_LIFETIME_S],
    ["a FAPI 2.0 code redeemed late", "docs/fapi2.md", /An authorization code redeemed after (\d+) seconds/, FAPI2_MAX_CODE_LIFETIME_S],
    ["a FAPI 2.0 request_uri's lifetime", "docs/fapi2.md", /FAPI 2.0 allows at most (\d+) seconds/, FAPI2_MAX_REQUEST_URI_LIFETIME_S],
  ])("%s: %s states what the code does", (_what, doc, pattern, value) => {
    expect(stated(doc, pattern)).toBe(value);
  });
});
