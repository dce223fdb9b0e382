/**
 * Where the user ledger (user-ledger.ts) files an entry, by when the entry ends, so that a reader finds
 * every live entry by reading a few counters whatever the lifetimes configured — without a list of the
 * store's keys, which the store does not have.
 *
 * An entry that lives `ttl` goes to the lowest level whose bucket span (a minute at level 0, doubling at
 * each level) is at least `ttl`, into the bucket of that span its end falls in. An entry of level k
 * still alive at `now` ends after `now` and at most one span after it (it was filed at or before `now`),
 * so it is in one of two buckets of its level: the one `now` falls in, or the next. Reading two buckets
 * per level finds every live entry; a bucket's counter lives until the bucket's span is over, when every
 * entry in it has ended.
 */

/** The span of a level-0 bucket. */
export const BASE_SPAN_MS = 60_000;
/** The top level spans 2^30 minutes (about 2,000 years): nothing a provider issues lives longer. */
export const MAX_LEVEL = 30;

export interface LedgerBucket {
  level: number;
  /** The bucket's number within its level: its start is index × span. */
  index: number;
  /** Epoch ms when the bucket's span is over: every entry in it has ended by then. */
  endsAt: number;
}

const spanOf = (level: number) => BASE_SPAN_MS * 2 ** level;

/** The bucket of an entry filed at `now` that ends at `until` (epoch ms, after `now`). */
export function bucketFor(now: number, until: number): LedgerBucket {
  const ttl = until - now;
  let level = 0;
  while (level < MAX_LEVEL && spanOf(level) < ttl) level++;
  return bucketAt(level, Math.floor(until / spanOf(level)));
}

/** The buckets that can hold an entry still alive at `now`: two per level. */
export function liveBuckets(now: number): LedgerBucket[] {
  const buckets: LedgerBucket[] = [];
  for (let level = 0; level <= MAX_LEVEL; level++) {
    const first = Math.floor(now / spanOf(level));
    buckets.push(bucketAt(level, first), bucketAt(level, first + 1));
  }
  return buckets;
}

function bucketAt(level: number, index: number): LedgerBucket {
  return { level, index, endsAt: (index + 1) * spanOf(level) };
}
