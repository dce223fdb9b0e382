import { storeKeyHash } from "../crypto/store-key-hash.ts";
import { randomToken } from "../crypto/random-token.ts";
import type { Clock } from "../time/clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";

/** RFC 9126 §2.2: the request_uri is a URN of this prefix and a random part the store knows only by its hash. */
export const PUSHED_REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";

/** What a push leaves for authorize: the client that pushed, its authorization request parameters as sent, and when they expire. */
export interface PushedRequest {
  clientId: string;
  /** The pushed authorization parameters, each once, in the order sent (client authentication parameters left out). */
  params: Array<[string, string]>;
  /** Epoch ms, by the provider's clock (the store's own TTL runs on the system clock and is a backstop). */
  expiresAt: number;
}

/**
 * Pushed authorization requests (RFC 9126): stored under the SHA-256 of the random part of their
 * request_uri, so a store dump yields no usable request_uri, and taken (the store's atomic `take`) by the
 * authorize request that uses them: exactly one authorize request, on any node, ever gets a pushed request.
 */
export class PushedRequests {
  readonly #records: RecordStore<PushedRequest>;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#records = store.namespace("pushedRequests");
    this.#clock = clock;
  }

  /** Keeps `params` for `ttlSeconds`; the request_uri that names them. */
  async push(clientId: string, params: Array<[string, string]>, ttlSeconds: number): Promise<string> {
    const secret = randomToken(32);
    const expiresAt = this.#clock() + ttlSeconds * 1000;
    await this.#records.set(storeKeyHash(secret), { clientId, params, expiresAt }, ttlSeconds * 1000);
    return PUSHED_REQUEST_URI_PREFIX + secret;
  }

  /** The pushed request `requestUri` names, removed for good; undefined when unknown, used or expired. */
  async take(requestUri: string): Promise<PushedRequest | undefined> {
    if (!isPushedRequestUri(requestUri)) return undefined;
    const record = await this.#records.take(storeKeyHash(requestUri.slice(PUSHED_REQUEST_URI_PREFIX.length)));
    return record !== undefined && record.expiresAt > this.#clock() ? record : undefined;
  }
}

/** Whether a request_uri is one of ours (a pushed request), rather than a request object by reference (which is declined). */
export function isPushedRequestUri(requestUri: string): boolean {
  return requestUri.startsWith(PUSHED_REQUEST_URI_PREFIX);
}
