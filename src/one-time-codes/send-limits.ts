import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { RecordStore } from "../stores/store.ts";
import type { CodeSlot } from "./one-time-codes.ts";

/** How often codes may be sent (a plugin's `limits` settings, in ms and counts). */
export interface SendPolicy {
  /** Least time between two codes for one slot (a re-send). */
  resendAfterMs: number;
  /** Codes sent per account (per method) within `windowMs`. */
  perAccount: number;
  /** Codes sent per client address (per method) within `windowMs`. */
  perAddress: number;
  windowMs: number;
}

/** Why a code may not be sent now; "ok" when it may. */
export type SendPermission = "ok" | "too_soon" | "limited";

/**
 * Sending a code costs money (SMS) and can be turned against the user (a flood of messages), so it
 * is limited three ways in the shared store, where every provider process counts alike: a re-send
 * for the same slot waits `resendAfterMs` (an atomic create-if-absent, so concurrent re-sends send
 * one), and each account and each client address has a budget per window.
 */
export class SendLimits {
  private readonly counters: RecordStore<number>;
  private readonly methodId: string;
  private readonly policy: SendPolicy;

  constructor(counters: RecordStore<number>, methodId: string, policy: SendPolicy) {
    this.counters = counters;
    this.methodId = methodId;
    this.policy = policy;
  }

  /** Claims a send for the slot, on behalf of `sub` from `clientAddress`. Counts against both budgets. */
  async claim(slot: CodeSlot, clientAddress: string): Promise<SendPermission> {
    if (!(await this.counters.add(this.cooldownKey(slot), 1, this.policy.resendAfterMs))) return "too_soon";
    // Both budgets count every claim, so a sender spread over many accounts still spends its address's.
    const [account, address] = await Promise.all([
      this.counters.increment(`otc-account:${this.methodId}:${storeKeyHash(slot.sub.toLowerCase())}`, this.policy.windowMs),
      this.counters.increment(`otc-address:${this.methodId}:${storeKeyHash(clientAddress)}`, this.policy.windowMs),
    ]);
    return account > this.policy.perAccount || address > this.policy.perAddress ? "limited" : "ok";
  }

  /** The send failed (nothing went out): the user may try again at once; the budgets stay spent. */
  async release(slot: CodeSlot): Promise<void> {
    await this.counters.delete(this.cooldownKey(slot));
  }

  private cooldownKey(slot: CodeSlot): string {
    return `otc-resend:${slot.scope}:${storeKeyHash(`${slot.sub}\n${slot.challenge}`)}`;
  }
}
