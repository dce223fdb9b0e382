import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BASE_SPAN_MS, MAX_LEVEL, bucketFor, liveBuckets } from "../../src/user-ledger/ledger-buckets.ts";
import { UserLedger, type LedgerEntry } from "../../src/user-ledger/user-ledger.ts";
import { embeddedStoreForSuite } from "../support/embedded-test-store.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T0 = 1_800_000_000_000;

describe("the ledger's buckets", () => {
  it("file every entry in a bucket that a reader at any moment of its life reads, and that outlives it", () => {
    const longest = BASE_SPAN_MS * 2 ** MAX_LEVEL;
    fc.assert(
      fc.property(
        fc.integer({ min: T0, max: T0 + 1000 * DAY }),
        fc.integer({ min: 1, max: longest }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (now, ttl, along) => {
          const until = now + ttl;
          const bucket = bucketFor(now, until);
          expect(bucket.endsAt).toBeGreaterThanOrEqual(until);
          const readAt = now + Math.floor(along * ttl);
          expect(liveBuckets(readAt)).toContainEqual(bucket);
        },
      ),
    );
  });

  it("read two buckets per level", () => {
    expect(liveBuckets(T0)).toHaveLength(2 * (MAX_LEVEL + 1));
  });
});

describe("UserLedger (embedded store)", () => {
  const store = embeddedStoreForSuite("user-ledger-");
  const holder = () => `E${randomBytes(6).toString("hex")}`;
  const access = (jti: string, until: number): LedgerEntry => ({ kind: "access_token", jti, clientId: "demo-web", issuedAt: T0, until });

  it("lists what was recorded at any time, with any lifetime, until it ends — and nothing once it has ended", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Each entry: recorded some minutes after the previous one, living from a minute to a year and a half.
        fc.array(fc.record({ after: fc.integer({ min: 0, max: 3 * DAY }), ttl: fc.integer({ min: MINUTE, max: 550 * DAY }) }), {
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 600 * DAY }),
        async (recorded, listAfter) => {
          let now = T0;
          const ledger = new UserLedger(store(), () => now);
          const sub = holder();
          const ends = new Map<string, number>();
          for (const [i, { after, ttl }] of recorded.entries()) {
            now += after;
            ends.set(`jti-${i}`, now + ttl);
            await ledger.record(sub, access(`jti-${i}`, now + ttl));
          }
          now += listAfter;
          const listed = (await ledger.list(sub)).map((entry) => (entry as { jti: string }).jti).sort();
          const alive = [...ends].filter(([, until]) => until > now).map(([jti]) => jti);
          expect(listed).toEqual(alive.sort());
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps each user's entries apart, a vendor account's sub with its ':' included", async () => {
    const now = T0;
    const ledger = new UserLedger(store(), () => now);
    await ledger.record("demo-vendor:acct-1", access("vendor-token", now + 10 * MINUTE));
    await ledger.record("demo-vendor:acct-2", access("other-token", now + 10 * MINUTE));
    expect((await ledger.list("demo-vendor:acct-1")).map((e) => (e as { jti: string }).jti)).toEqual(["vendor-token"]);
    expect(await ledger.list("demo-vendor:acct-3")).toEqual([]);
  });

  it("gives concurrent records of one user each a slot of its own", async () => {
    const now = T0;
    const ledger = new UserLedger(store(), () => now);
    const sub = holder();
    await Promise.all(Array.from({ length: 40 }, (_, i) => ledger.record(sub, access(`t${i}`, now + 5 * MINUTE))));
    expect(await ledger.list(sub)).toHaveLength(40);
  });

  it("does not file an entry that has already ended", async () => {
    const now = T0;
    const ledger = new UserLedger(store(), () => now);
    const sub = holder();
    await ledger.record(sub, access("gone", now));
    expect(await ledger.list(sub)).toEqual([]);
  });
});
