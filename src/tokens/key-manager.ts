import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../stores/store.ts";
import type { Clock } from "../time/clock.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { SIGNING_ALGS, signingAlgOfKey, type SigningAlg } from "../crypto/signing-alg.ts";
import { KeySet, type KeyEntry, type KeyStatus } from "./key-set.ts";
import { algOf, keyOf, nextRotationStep, type KeyRing, type RotationPolicy, type StoredKey } from "./key-rotation.ts";
import { KeyRingStore } from "./key-ring-store.ts";

/** How often every process re-reads the ring: the longest a node signs with a key the ring has retired. */
export const KEY_SYNC_EVERY_MS = 60_000;
/** A lifecycle needs at most a few steps at once per algorithm (generate, promote), and one prune. */
const MAX_STEPS_PER_SYNC = 3 * SIGNING_ALGS.length + 1;

export interface StaticKey {
  kid: string;
  status: KeyStatus;
  private_key_pem: string;
  /** Absent: the key's own (RS256 for RSA, ES256 for P-256); config rules refuse a key that cannot sign what is declared. */
  alg?: SigningAlg;
}

export interface KeyManagerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  modulusLength: number;
  policy: RotationPolicy;
  /** Seals generated private keys before they reach the store. */
  box: SecretBox;
  /** Operator-managed keys from provider.yaml; when given, nothing is generated or rotated. */
  staticKeys?: readonly StaticKey[];
  /** Told of each lifecycle step this process applies on schedule (a key generated, promoted or retired): the audit trail hears it. */
  onRotated?: (kid: string, status: KeyStatus) => void;
}

/**
 * Owns the provider's signing keys. Static keys come from config as they are. Otherwise keys are
 * generated on first start, stored durably, and rotated next → current → retired; every provider
 * process re-reads the ring periodically, and a store-level lock keeps two processes from rotating
 * at once. A process that finds keys it signed with missing from the ring (the store lost it) writes
 * them back as retired, so the tokens they signed stay valid until they expire.
 */
export class KeyManager {
  private readonly options: KeyManagerOptions;
  private keySet!: KeySet;
  /** The ring this process last used: what it still publishes if the store loses the ring. */
  private ring: KeyRing | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly parsed = new Map<string, KeyObject>();
  private readonly ringStore: KeyRingStore;

  private constructor(options: KeyManagerOptions) {
    this.options = options;
    this.ringStore = new KeyRingStore(options);
  }

  /**
   * A reload (src/reload/) that lengthens a token lifetime keeps retired keys published longer; never
   * shorter, since tokens signed before the reload keep the lifetime they were signed with.
   */
  retainAtLeast(ms: number): void {
    if (ms > this.options.policy.retainFor) this.options.policy = { ...this.options.policy, retainFor: ms };
  }

  static async open(options: KeyManagerOptions): Promise<KeyManager> {
    const manager = new KeyManager(options);
    if (options.staticKeys?.length) {
      manager.keySet = new KeySet(options.staticKeys.map(staticEntry));
      return manager;
    }
    await manager.sync();
    manager.timer = setInterval(
      () => manager.sync().catch((err) => options.logger.error({ err }, "key ring sync failed")),
      KEY_SYNC_EVERY_MS,
    );
    manager.timer.unref();
    return manager;
  }

  get keys(): KeySet {
    return this.keySet;
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** Re-reads the ring from the store and applies any due lifecycle step. */
  async sync(): Promise<void> {
    let ring = await this.ringStore.read();
    for (let attempt = 0; ring === undefined || this.stepDue(ring) || this.lostKeys(ring).length > 0; attempt++) {
      let written: KeyRing | undefined;
      const done = await this.ringStore.update(async (stored) => (written = await this.applyDueSteps(this.withLostKeys(stored))));
      if (done) {
        ring = written;
        break;
      }
      // Another process (a node, or an operator's `portcullis keys`) holds the lock: wait for its result rather than racing it.
      if (attempt > 40) throw new Error("timed out waiting for another process to write the signing keys");
      await new Promise((r) => setTimeout(r, 250));
      ring = await this.ringStore.read();
      if (ring !== undefined && this.lostKeys(ring).length === 0) break;
    }
    this.ring = ring!;
    this.keySet = new KeySet(ring!.keys.map((k) => this.toEntry(k)));
  }

  /**
   * Keys this process signed with (or still publishes as retired) that the stored ring no longer has,
   * and that may still have signed a valid token. A ring never loses such a key by rotation (a key is
   * retired, and pruned only after `retainFor`), so they are missing because the store lost the ring:
   * a Redis flush, or a new empty server. Without them every token still inside its lifetime would fail.
   */
  private lostKeys(ring: KeyRing | undefined): StoredKey[] {
    if (this.ring === undefined) return [];
    const now = this.options.clock();
    // An operator's unpublished key is gone on purpose, not lost.
    const kept = new Set([...(ring?.keys ?? []), ...(ring?.unpublished ?? [])].map((k) => k.kid));
    return this.ring.keys.filter(
      (k) =>
        !kept.has(k.kid) &&
        k.activatedAt !== undefined &&
        (k.status !== "retired" || now - (k.retiredAt ?? now) < this.options.policy.retainFor),
    );
  }

  /** The stored ring with the lost keys put back as retired: published and verifying until what they signed has expired. */
  private withLostKeys(stored: KeyRing | undefined): KeyRing {
    const lost = this.lostKeys(stored);
    const now = this.options.clock();
    if (lost.length > 0) {
      this.options.logger.warn(
        { kids: lost.map((k) => k.kid) },
        "the signing key ring is missing from the store (flushed, or a new empty server): keeping this process's keys published as retired until the tokens they signed expire",
      );
    }
    return {
      ...stored,
      keys: [
        ...(stored?.keys ?? []),
        ...lost.map((k): StoredKey => (k.status === "retired" ? k : { ...k, status: "retired", retiredAt: now })),
      ],
    };
  }

  private stepDue(ring: KeyRing): boolean {
    return nextRotationStep(ring, this.options.clock(), this.options.policy).kind !== "none";
  }

  private async applyDueSteps(ring: KeyRing): Promise<KeyRing> {
    // The bound keeps a policy that is always due from generating keys forever.
    for (let i = 0; i < MAX_STEPS_PER_SYNC; i++) {
      const now = this.options.clock();
      const step = nextRotationStep(ring, now, this.options.policy);
      if (step.kind === "none") return ring;
      if (step.kind === "generate-next") {
        // An algorithm without a current key (first start, or a ring from before it was offered) signs at once.
        const status = keyOf(ring, step.alg, "current") ? "next" : "current";
        const key = await this.ringStore.generate(step.alg, status, now);
        this.options.logger.info({ kid: key.kid, alg: step.alg, status }, "generated signing key");
        ring = { ...ring, keys: [...ring.keys, key] };
        this.options.onRotated?.(key.kid, status);
      } else {
        if (step.kind === "promote") this.reportPromotion(ring, step.ring);
        ring = step.ring;
      }
    }
    this.options.logger.warn("key rotation still due after the step limit; continuing at the next sync");
    return ring;
  }

  private reportPromotion(before: KeyRing, after: KeyRing): void {
    this.options.logger.info("rotated signing keys");
    const was = new Map(before.keys.map((k) => [k.kid, k.status]));
    for (const k of after.keys) if (was.get(k.kid) !== k.status) this.options.onRotated?.(k.kid, k.status);
  }

  private toEntry(k: StoredKey): KeyEntry {
    let privateKey = this.parsed.get(k.kid);
    if (!privateKey) {
      privateKey = this.ringStore.open(k);
      this.parsed.set(k.kid, privateKey);
    }
    return { kid: k.kid, status: k.status, alg: algOf(k), privateKey };
  }
}

/** A provider.yaml key as the key set takes it: its declared alg, else the one its key type signs (config rules checked they agree). */
function staticEntry(k: StaticKey): KeyEntry {
  const privateKey = createPrivateKey(k.private_key_pem);
  const fits = signingAlgOfKey(privateKey, k.alg);
  if ("problem" in fits) throw new Error(`static signing key ${k.kid} ${fits.problem}`);
  return { kid: k.kid, status: k.status, alg: fits.alg, privateKey };
}
