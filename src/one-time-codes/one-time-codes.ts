import type { Clock } from "../time/clock.ts";
import { constantTimeEqual } from "../crypto/constant-time-equal.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { RecordStore } from "../stores/store.ts";
import type { CodeHasher } from "./code-hasher.ts";
import { generateCode, normaliseCode } from "./one-time-code.ts";

/**
 * Where a code lives: one current code per purpose (`<method>:login`, `<method>:enroll`), user and
 * challenge (a random id the method machine keeps for its interaction). Issuing again into the same
 * slot replaces the code, so a re-sent code supersedes the one before it.
 */
export interface CodeSlot {
  scope: string;
  sub: string;
  challenge: string;
}

/** What the store holds for a code: never the code, only its HMAC; the target sealed. */
export interface CodeRecord {
  hash: string;
  /** Epoch ms (the provider's clock): the code is refused from then on, whatever the store's TTL says. */
  expiresAt: number;
  /** The address the code went to, sealed, for codes that confirm an address (enrollment). */
  target?: string;
}

/** A redeemed code: what it was issued with. */
export interface RedeemedCode {
  target?: string;
}

/**
 * Six-digit one-time codes (DESIGN "Security baseline": they expire, are single use, and are
 * superseded by a re-send). Attempt limits are the caller's: count the attempt before redeeming.
 */
export class OneTimeCodes {
  private readonly records: RecordStore<CodeRecord>;
  private readonly clock: Clock;
  private readonly hasher: CodeHasher;
  private readonly box: SecretBox;
  /** How long a code is valid, in ms. */
  readonly lifetimeMs: number;

  constructor(records: RecordStore<CodeRecord>, clock: Clock, hasher: CodeHasher, box: SecretBox, lifetimeMs: number) {
    this.records = records;
    this.clock = clock;
    this.hasher = hasher;
    this.box = box;
    this.lifetimeMs = lifetimeMs;
  }

  /** A new code for the slot, replacing any earlier one; `target` is kept (sealed) to come back on redemption. */
  async issue(slot: CodeSlot, target?: string): Promise<string> {
    const key = recordKey(slot);
    const code = generateCode();
    const record: CodeRecord = { hash: this.hasher.hash(key, code), expiresAt: this.clock() + this.lifetimeMs };
    if (target !== undefined) record.target = this.box.seal(target, key);
    await this.records.set(key, record, this.lifetimeMs);
    return code;
  }

  /** Forgets the slot's code (it could not be delivered, or there is nothing to send it to any more). */
  async discard(slot: CodeSlot): Promise<void> {
    await this.records.delete(recordKey(slot));
  }

  /**
   * Redeems a typed code: the slot's current, unexpired code, at most once. A wrong code leaves the
   * right one in place (the attempt limit bounds guessing); the right one is taken atomically, so of
   * concurrent redemptions in any number of processes only one succeeds.
   */
  async redeem(slot: CodeSlot, typed: unknown): Promise<RedeemedCode | undefined> {
    const code = normaliseCode(typed);
    if (code === undefined) return undefined;
    const key = recordKey(slot);
    const record = await this.records.get(key);
    if (!record || this.clock() >= record.expiresAt) return undefined;
    if (!constantTimeEqual(record.hash, this.hasher.hash(key, code))) return undefined;
    const taken = await this.records.take(key);
    if (!taken) return undefined; // redeemed by a concurrent request
    if (taken.hash !== record.hash) {
      // A re-send replaced the code between the read and the take: the newer code is not ours to consume.
      const left = taken.expiresAt - this.clock();
      if (left > 0) await this.records.add(key, taken, left);
      return undefined;
    }
    return { target: taken.target === undefined ? undefined : this.box.open(taken.target, key) };
  }
}

/** The store key of a slot: the scope in clear (for operators), the user and challenge hashed (fixed length, any characters). */
function recordKey(slot: CodeSlot): string {
  return `${slot.scope}:${storeKeyHash(`${slot.sub}\n${slot.challenge}`)}`;
}
