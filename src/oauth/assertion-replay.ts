import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import type { Clock } from "../time/clock.ts";

/**
 * The jti of every client assertion accepted, kept until the assertion expires (RFC 7523 §3 item 7):
 * a second presentation, on this node or any other sharing the store, is refused. The claim is the
 * store's atomic `add`, so of two nodes racing with the same assertion exactly one wins.
 */
export class AssertionReplay {
  readonly #records: RecordStore<1>;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#records = store.namespace("clientAssertions");
    this.#clock = clock;
  }

  /**
   * True for the first use of `jti` by `clientId`; false when it was used before. Kept until `exp`
   * (epoch seconds) plus `skewSeconds`, the time the assertion could still pass the expiry check.
   */
  claim(clientId: string, jti: string, exp: number, skewSeconds: number): Promise<boolean> {
    // Hashed: the jti is the client's text, of any length and content; the store key is fixed-size.
    const ttl = Math.max(1_000, (exp + skewSeconds) * 1000 - this.#clock());
    return this.#records.add(storeKeyHash(`${clientId}\n${jti}`), 1, ttl);
  }
}
