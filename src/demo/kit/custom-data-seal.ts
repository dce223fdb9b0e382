import { createHash, timingSafeEqual } from "node:crypto";
import { epochSeconds, systemClock, type Clock } from "../../time/clock.ts";

/** SPEC Limits: sealed custom data is accepted for 10 minutes after it was made. */
export const SEALED_DATA_LIFETIME_S = 600;
/** A seal made up to this far ahead of our clock still counts: the two ends' clocks may differ a little. */
const CLOCK_SKEW_S = 60;

/** Why a value is refused: not the layout at all (`malformed`), a hash that does not match (`forged`), or out of its time (`expired`). */
export type SealProblem = "malformed" | "forged" | "expired";
export type OpenedData = { ok: true; payload: string } | { ok: false; problem: SealProblem };

/** base64url without padding, then `<unix_seconds>.<payload>.<32 uppercase hex>` (the payload may hold dots). */
const ENCODED = /^[A-Za-z0-9_-]+$/;
const LAYOUT = /^(\d{1,12})\.(.+)\.([0-9A-F]{32})$/s;

/**
 * The SPEC's informative way of protecting custom QR-code login data ("Custom QR-code login",
 * informative recommendation; docs/custom-login.md §11): base64url (no padding) of
 * `<unix_seconds>.<payload>.<hash>`, hash = uppercase hex MD5 of `<unix_seconds>.<payload>` + the user's
 * employee number (the token's `sub`) + a secret the producer and the checker share; accepted for 10 minutes.
 * The one implementation both ends of the demo use: the channel selector page seals what it writes, and
 * channelinfo opens it with the sub of the caller's token.
 *
 * MD5 is what the SPEC names, so a party that follows the SPEC can check our seals. It is acceptable
 * here because the secret comes last (no length extension) and the attacks on MD5 are collisions, which
 * would need us to seal a value of the attacker's choosing; we seal only our own timestamp and payload.
 * A new pair of services that need not match the SPEC's layout may prefer HMAC-SHA-256 in its place.
 */
export class CustomDataSeal {
  private readonly secret: string;
  private readonly clock: Clock;

  constructor(secret: string, clock: Clock = systemClock) {
    this.secret = secret;
    this.clock = clock;
  }

  seal(payload: string, employeeNumber: string): string {
    const head = `${epochSeconds(this.clock)}.${payload}`;
    return Buffer.from(`${head}.${this.hash(head, employeeNumber)}`, "utf8").toString("base64url");
  }

  /** The payload when `data` was sealed for `employeeNumber` with our secret within the last 10 minutes. */
  open(data: string, employeeNumber: string): OpenedData {
    const parts = ENCODED.test(data) ? LAYOUT.exec(decodeUtf8(Buffer.from(data, "base64url")) ?? "") : null;
    if (!parts) return { ok: false, problem: "malformed" };
    const [, seconds, payload, hash] = parts as unknown as [string, string, string, string];
    const expected = Buffer.from(this.hash(`${seconds}.${payload}`, employeeNumber));
    // Both are 32 ASCII characters (LAYOUT), so the lengths match and the comparison takes constant time.
    if (!timingSafeEqual(Buffer.from(hash), expected)) return { ok: false, problem: "forged" };
    const age = epochSeconds(this.clock) - Number(seconds);
    if (age > SEALED_DATA_LIFETIME_S || age < -CLOCK_SKEW_S) return { ok: false, problem: "expired" };
    return { ok: true, payload };
  }

  private hash(head: string, employeeNumber: string): string {
    return createHash("md5").update(`${head}${employeeNumber}${this.secret}`, "utf8").digest("hex").toUpperCase();
  }
}

/** The text of UTF-8 bytes, or undefined when they are not UTF-8 (a value we never sealed). */
function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
