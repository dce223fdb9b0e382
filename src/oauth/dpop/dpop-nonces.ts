import { createHmac } from "node:crypto";
import type { Clock } from "../../time/clock.ts";
import { constantTimeEqual } from "../../crypto/constant-time-equal.ts";

/** How long one nonce is current; the previous one is accepted too, so a nonce lives one to two steps. */
export const STEP_MS = 300_000;

/**
 * Server nonces (RFC 9449 §8, §9) that need no shared state: a nonce is an HMAC over the number of
 * the current time step, under a key every node derives from the provider's sealing secret
 * (SecretBox.derivedKey). Any node of a deployment computes the same nonce for the same step and
 * checks a nonce with two MACs, without a store round trip. The nonce of the current step and of the
 * one before are accepted, so a nonce handed out just before a step ends is still good in the next.
 */
export class DpopNonces {
  readonly #key: Buffer;
  readonly #clock: Clock;

  constructor(key: Buffer, clock: Clock) {
    this.#key = key;
    this.#clock = clock;
  }

  /** The nonce of the current step: what a `DPoP-Nonce` header hands out. */
  current(): string {
    return this.#forStep(this.#step());
  }

  /** Whether `nonce` is the current step's or the previous one's. */
  accepts(nonce: string): boolean {
    const step = this.#step();
    return constantTimeEqual(nonce, this.#forStep(step)) || constantTimeEqual(nonce, this.#forStep(step - 1));
  }

  #step(): number {
    return Math.floor(this.#clock() / STEP_MS);
  }

  #forStep(step: number): string {
    return createHmac("sha256", this.#key).update(`dpop-nonce:${step}`).digest("base64url");
  }
}
