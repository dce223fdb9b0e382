import type { Logger } from "pino";
import { OutboundRequestError, sendOutbound } from "../delivery/outbound-request.ts";
import type { Clock } from "../time/clock.ts";
import { type ClientPublicKey, parsePublicKeys } from "../crypto/client-public-keys.ts";

/** How a jwks_uri is fetched and kept (docs/client-authentication.md, "Keys at a jwks_uri"). */
export const REMOTE_JWKS_LIMITS = {
  /** A client's key server that does not answer in this time is down, as far as this request goes. */
  timeoutMs: 5_000,
  /** A JWK Set of a few keys is a few kilobytes; anything much larger is not one. */
  maxBytes: 65_536,
  /** Kept this long when the answer says nothing of caching. */
  defaultTtlMs: 3_600_000,
  /** Cache-Control max-age is honoured within these bounds: never fetched more often, never kept longer. */
  minTtlMs: 60_000,
  maxTtlMs: 86_400_000,
  /**
   * The least time between two fetches of one URI, however many assertions name an unknown kid: an
   * attacker who sends assertions with made-up kids cannot make the provider hammer the client's server.
   */
  refetchFloorMs: 60_000,
} as const;

interface CachedSet {
  keys: readonly ClientPublicKey[];
  /** Until when the set is used without asking again (epoch ms). */
  freshUntil: number;
}

/**
 * The JWK Sets of private_key_jwt clients that publish their keys at a jwks_uri, per URI, for the
 * process's life (a reload keeps them: the URI, not the policy, names the set). A set is fetched when
 * first needed, again once it is stale, and again early when an assertion names a kid it does not hold
 * (the client rotated its key) — but never twice within the refetch floor. A failed fetch keeps the set
 * already held: a client's key server having a bad minute must not lock the client out.
 */
export class RemoteJwks {
  readonly #sets = new Map<string, CachedSet>();
  /** When each URI was last asked, successfully or not. */
  readonly #lastFetch = new Map<string, number>();
  /** One fetch per URI at a time: concurrent requests wait for the same answer. */
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #clock: Clock;
  readonly #logger: Pick<Logger, "warn"> | undefined;
  readonly #limits: typeof REMOTE_JWKS_LIMITS;

  constructor(clock: Clock, logger?: Pick<Logger, "warn">, limits: typeof REMOTE_JWKS_LIMITS = REMOTE_JWKS_LIMITS) {
    this.#clock = clock;
    this.#logger = logger;
    this.#limits = limits;
  }

  /** The keys published at `uri`, fetched again first when stale or when `kid` is named but not held; [] when none could be had. */
  async keys(uri: string, kid: string | undefined): Promise<readonly ClientPublicKey[]> {
    const now = this.#clock();
    const held = this.#sets.get(uri);
    const unknownKid = kid !== undefined && held !== undefined && !held.keys.some((k) => k.kid === kid);
    const mayFetch = now - (this.#lastFetch.get(uri) ?? Number.NEGATIVE_INFINITY) >= this.#limits.refetchFloorMs;
    // The floor holds for a set never had too: a key server that keeps failing is asked once a minute, not per request.
    const pending = this.#inFlight.get(uri);
    // A fetch under way is waited for, whoever started it: its answer may hold the key this request needs.
    if (pending !== undefined) await pending;
    else if ((held === undefined || now >= held.freshUntil || unknownKid) && mayFetch) await this.#refresh(uri);
    return this.#sets.get(uri)?.keys ?? [];
  }

  #refresh(uri: string): Promise<void> {
    const pending = this.#fetch(uri).finally(() => this.#inFlight.delete(uri));
    this.#inFlight.set(uri, pending);
    return pending;
  }

  async #fetch(uri: string): Promise<void> {
    this.#lastFetch.set(uri, this.#clock());
    try {
      const { text, headers } = await sendOutbound(uri, {
        method: "GET",
        headers: { accept: "application/jwk-set+json, application/json" },
        timeoutMs: this.#limits.timeoutMs,
        maxAnswerBytes: this.#limits.maxBytes,
      });
      const keys = parsePublicKeys(JSON.parse(text));
      if (keys.length === 0) throw new OutboundRequestError("no usable signing key in the answer");
      this.#sets.set(uri, { keys, freshUntil: this.#clock() + this.#ttl(headers.get("cache-control")) });
    } catch (err) {
      const reason = err instanceof OutboundRequestError ? err.reason : "the answer is not a JWK Set";
      this.#logger?.warn({ jwks_uri: uri, reason, kept: this.#sets.has(uri) }, "a client's jwks_uri could not be fetched");
    }
  }

  /** max-age within the bounds; no-store/no-cache count as the least time, so a set is not fetched on every request. */
  #ttl(cacheControl: string | null): number {
    const { defaultTtlMs, minTtlMs, maxTtlMs } = this.#limits;
    if (cacheControl === null) return defaultTtlMs;
    const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
    if (maxAge === null) return /no-store|no-cache/i.test(cacheControl) ? minTtlMs : defaultTtlMs;
    return Math.min(maxTtlMs, Math.max(minTtlMs, Number(maxAge[1]) * 1000));
  }
}
