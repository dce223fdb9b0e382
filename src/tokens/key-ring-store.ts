import { createPrivateKey, randomBytes, type KeyObject } from "node:crypto";
import { generateSigningKey, type SigningAlg } from "../crypto/signing-alg.ts";
import type { Store, RecordStore } from "../stores/store.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { KeyStatus } from "./key-set.ts";
import type { KeyRing, StoredKey } from "./key-rotation.ts";

/** Binds a sealed key to its kid: a sealed key moved to another entry of the ring does not open. */
const sealContext = (kid: string) => `signing-key:${kid}`;
const RING = "signing-keys";
const LOCK = "signing-keys.lock";
/** A writer that dies holding the lock blocks the others for at most this long. */
const LOCK_TTL_MS = 30_000;

export interface KeyRingStoreOptions {
  store: Store;
  /** Seals generated private keys before they reach the store. */
  box: SecretBox;
  /** RSA modulus length of generated RS256 and PS256 keys. */
  modulusLength: number;
}

/**
 * The generated signing keys as kept in the store (namespace `keys`, ring `signing-keys`): reading the
 * ring, changing it under the store-level lock `signing-keys.lock`, generating sealed keys and opening
 * them. Shared by the KeyManager of every provider process (its scheduled lifecycle) and by the
 * operator's `portcullis keys` (rotation on demand), so both write the ring the same way and never at
 * the same time.
 */
export class KeyRingStore {
  private readonly options: KeyRingStoreOptions;
  private readonly records: RecordStore<KeyRing | number>;

  constructor(options: KeyRingStoreOptions) {
    this.options = options;
    this.records = options.store.namespace("keys");
  }

  /** The stored ring, or undefined when there is none (never started, or the store lost it). */
  async read(): Promise<KeyRing | undefined> {
    const ring = await this.records.get(RING);
    return typeof ring === "object" && ring.keys.length > 0 ? ring : undefined;
  }

  /**
   * Takes the lock, re-reads the ring, writes what `change` makes of it (undefined: nothing to write) and
   * releases the lock. Resolves to true once done, false when another process holds the lock (nothing
   * was changed then: wait and re-read).
   */
  async update(change: (stored: KeyRing | undefined) => Promise<KeyRing | undefined>): Promise<boolean> {
    if (!(await this.records.add(LOCK, 1, LOCK_TTL_MS))) return false;
    try {
      const ring = await change(await this.read());
      if (ring !== undefined) await this.records.set(RING, ring);
      return true;
    } finally {
      await this.records.delete(LOCK);
    }
  }

  /** A new key for `alg` with a random kid, its private part sealed for the store. */
  async generate(alg: SigningAlg, status: KeyStatus, now: number): Promise<StoredKey> {
    const privateKey = await generateSigningKey(alg, this.options.modulusLength);
    const kid = randomBytes(12).toString("base64url");
    const sealedPkcs8 = this.options.box.seal(privateKey.export({ format: "pem", type: "pkcs8" }).toString(), sealContext(kid));
    return { kid, status, alg, sealedPkcs8, createdAt: now, ...(status === "current" ? { activatedAt: now } : {}) };
  }

  /** The private key of a stored key (throws when it was sealed under another encryption key). */
  open(key: StoredKey): KeyObject {
    return createPrivateKey(this.options.box.open(key.sealedPkcs8, sealContext(key.kid)));
  }
}
