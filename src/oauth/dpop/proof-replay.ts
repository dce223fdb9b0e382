import { storeKeyHash } from "../../crypto/store-key-hash.ts";
import type { RecordStore, Store } from "../../stores/store.ts";

/**
 * The proofs seen (RFC 9449 §11.1): each proof's `jti`, per key, kept as long as the proof could still
 * be accepted. The claim is the store's atomic `add`, so a proof is accepted once across every node
 * that shares the store, and it is the one store round trip a proof costs. Keyed by the key's
 * thumbprint too, so one client's jtis can never collide with (and block) another's; hashed, so a
 * client's long jti never exceeds a store's key length.
 */
export class ProofReplay {
  readonly #seen: RecordStore<1>;

  constructor(store: Store) {
    this.#seen = store.namespace("dpopProofs");
  }

  /** True for the one request that first presents this key's `jti` within `ttlMs`; false for a replay. */
  claim(jkt: string, jti: string, ttlMs: number): Promise<boolean> {
    return this.#seen.add(storeKeyHash(`${jkt}.${jti}`), 1, Math.max(1, ttlMs));
  }
}
