import { randomInt } from "node:crypto";
import type { TrustedAppServices } from "./trusted-app-services.ts";
import type { RecordStore } from "../stores/store.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import { constantTimeEqual } from "../crypto/constant-time-equal.ts";
import { loginUri } from "./acmeauth-uri.ts";
import { checkAppEvidence, wantsAppEvidence, type AppEvidence, type AppEvidenceProblem, type AppEvidenceWanted } from "./app-evidence.ts";
import { DEVICE_ENROLLMENT_METHOD, type Device } from "./device-registry.ts";
import { randomToken } from "../crypto/random-token.ts";

/**
 * A login QR challenge. It has two names: the *challenge id*, which only the login page knows (it
 * polls by it and sees the matching number), and the *scan token* in the QR code, which the app gets.
 * The app therefore never learns the number it must be told: number matching holds.
 */
export interface LoginChallenge {
  state: "pending" | "scanned" | "approved" | "rejected" | "denied" | "refused";
  /** The scan token (in the QR code); not a secret from the page that shows it. */
  scanToken: string;
  ttlMs: number;
  expiresAt: number;
  /** Set by the scan: the device and its user. */
  sub?: string;
  deviceId?: string;
  deviceName?: string;
  /** Number matching: shown on the login page after the scan, typed into the app to approve. */
  number?: string;
  /** What the app must sign into its scan (acr_values app_gps / app_faceid); the QR code says so. */
  wanted?: AppEvidenceWanted;
  /** Set by the scan: the checked evidence, which the login outputs. */
  evidence?: AppEvidence;
  /** Set when a scan was refused for its evidence (state "refused"): which requirement failed. */
  problem?: AppEvidenceProblem;
}

/** What the login page (and its machine) may know of a challenge. */
export type ChallengeView =
  | { state: "pending"; uri: string; expiresAt: number }
  | { state: "scanned"; deviceName: string; number: string; expiresAt: number }
  | { state: "refused"; problem: AppEvidenceProblem }
  | { state: "approved" | "rejected" | "denied" | "expired" };

/** Why a scan or a decision was refused; `reason` is safe to tell the app. */
export class ChallengeError extends Error {
  static readonly code: string = "ERR_LOGIN_CHALLENGE";
  readonly code: string = "ERR_LOGIN_CHALLENGE";
  readonly reason: string;
  /** true: the app's answer was refused (a wrong number, evidence missing or bad) and the challenge is spent. */
  readonly denied: boolean;

  constructor(reason: string, denied = false) {
    super(reason);
    this.reason = reason;
    this.denied = denied;
  }
}

/**
 * The login QR challenges of the qrcode method, in the shared store (any provider process can take
 * the page's poll, the app's scan or its approval). Each step is decided once: a scan and a decision
 * each claim the challenge with an atomic `add` before writing it, and the approved challenge is
 * consumed with `take`, so it logs one browser in, once.
 */
export class LoginChallenges {
  private readonly provider: TrustedAppServices;
  private readonly records: RecordStore<unknown>;

  constructor(provider: TrustedAppServices, records: RecordStore<unknown>) {
    this.provider = provider;
    this.records = records;
  }

  /** A fresh challenge valid for `ttlMs`, wanting this evidence from the app; the page keeps only its id. */
  async create(ttlMs: number, wanted?: AppEvidenceWanted): Promise<{ challengeId: string; expiresAt: number }> {
    const challengeId = randomToken(16);
    const scanToken = randomToken(16);
    const expiresAt = this.provider.clock() + ttlMs;
    const challenge: LoginChallenge = { state: "pending", scanToken, ttlMs, expiresAt, ...(wantsAppEvidence(wanted) && { wanted }) };
    // The records outlive the challenge a little, so a late poll learns "expired" rather than nothing.
    const keep = ttlMs + 60_000;
    await this.records.set(scanKey(scanToken), challengeId, keep);
    await this.records.set(challengeKey(challengeId), challenge, keep);
    return { challengeId, expiresAt };
  }

  /** The challenge as its page sees it (unknown ids look expired). */
  async view(challengeId: string): Promise<ChallengeView> {
    const challenge = await this.get(challengeId);
    if (!challenge || this.isExpired(challenge)) return { state: "expired" };
    if (challenge.state === "pending")
      return {
        state: "pending",
        uri: loginUri(this.provider.issuer, challenge.scanToken, challenge.wanted),
        expiresAt: challenge.expiresAt,
      };
    if (challenge.state === "refused") return { state: "refused", problem: challenge.problem! };
    if (challenge.state === "scanned")
      return { state: "scanned", deviceName: challenge.deviceName!, number: challenge.number!, expiresAt: challenge.expiresAt };
    return { state: challenge.state };
  }

  /**
   * Consumes an approved challenge (once, in any process): the user it logs in and the evidence the
   * scan carried. Undefined when it is not approved, already consumed or expired.
   */
  async consumeApproved(challengeId: string): Promise<{ sub: string; evidence?: AppEvidence } | undefined> {
    const challenge = (await this.records.take(challengeKey(challengeId))) as LoginChallenge | undefined;
    if (challenge?.state !== "approved" || this.isExpired(challenge)) return undefined;
    return { sub: challenge.sub!, ...(challenge.evidence && { evidence: challenge.evidence }) };
  }

  /** Forgets a challenge whose page moved on (a new QR). */
  async discard(challengeId: string): Promise<void> {
    const challenge = (await this.records.take(challengeKey(challengeId))) as LoginChallenge | undefined;
    if (challenge) await this.records.delete(scanKey(challenge.scanToken));
  }

  /**
   * A device scanned the QR: the first scan wins; the number to match is drawn now. A scan without the
   * evidence the challenge wants (`claims` are the scan JWS's) spends the challenge: the page tells
   * the user why and shows a new QR code.
   */
  async scan(scanToken: string, sub: string, device: Device, claims: Record<string, unknown> = {}): Promise<void> {
    const { challengeId, challenge } = await this.byScanToken(scanToken);
    if (challenge.state !== "pending" || !(await this.claim("scanned", challengeId, challenge)))
      throw new ChallengeError("the QR code was already scanned");
    const checked = challenge.wanted ? checkAppEvidence(claims, challenge.wanted, Math.floor(this.provider.clock() / 1000)) : undefined;
    if (checked && !checked.ok) {
      await this.records.set(
        challengeKey(challengeId),
        { ...challenge, state: "refused", problem: checked.problem },
        challenge.ttlMs + 60_000,
      );
      throw new ChallengeError(checked.description, true);
    }
    const scanned: LoginChallenge = {
      ...challenge,
      state: "scanned",
      sub,
      deviceId: device.id,
      deviceName: device.name,
      number: String(randomInt(10, 100)),
      ...(checked?.ok && { evidence: checked.evidence }),
      // The user gets the full time again to read the number and approve.
      expiresAt: this.provider.clock() + challenge.ttlMs,
    };
    await this.records.set(challengeKey(challengeId), scanned, challenge.ttlMs + 60_000);
  }

  /**
   * The scanning device decides: approve with the number the page shows, or deny. A wrong number
   * spends the challenge (the page starts over with a new QR), so the number cannot be guessed twice,
   * and counts against the user's qrcode attempt limit: once it is used up, even the right number is
   * refused exactly like a wrong one until the window passes.
   */
  async decide(
    scanToken: string,
    sub: string,
    device: Device,
    decision: { approve: true; number: unknown } | { approve: false },
  ): Promise<void> {
    const { challengeId, challenge } = await this.byScanToken(scanToken);
    if (challenge.state !== "scanned" || challenge.deviceId !== device.id || challenge.sub !== sub)
      throw new ChallengeError("this device has not scanned the QR code");
    if (!(await this.claim("decided", challengeId, challenge))) throw new ChallengeError("the sign-in was already decided");
    const attempts = this.provider.methods.get(DEVICE_ENROLLMENT_METHOD)?.context.attempts;
    const allowed = !decision.approve || !attempts || (await attempts.tryAttempt(sub));
    const matches =
      decision.approve && allowed && typeof decision.number === "string" && constantTimeEqual(decision.number, challenge.number!);
    if (matches) await attempts?.succeeded(sub);
    const state: LoginChallenge["state"] = !decision.approve ? "denied" : matches ? "approved" : "rejected";
    // An approval leaves the page a moment to notice it, however late in the challenge's life it came.
    const expiresAt = state === "approved" ? Math.max(challenge.expiresAt, this.provider.clock() + APPROVED_GRACE_MS) : challenge.expiresAt;
    await this.records.set(challengeKey(challengeId), { ...challenge, state, expiresAt }, challenge.ttlMs + 60_000);
    if (decision.approve && !matches) throw new ChallengeError("the number does not match the one on the sign-in page", true);
  }

  private async byScanToken(scanToken: unknown): Promise<{ challengeId: string; challenge: LoginChallenge }> {
    if (typeof scanToken !== "string" || scanToken.length > 128) throw new ChallengeError("the QR code is not valid");
    const challengeId = (await this.records.get(scanKey(scanToken))) as string | undefined;
    const challenge = challengeId === undefined ? undefined : await this.get(challengeId);
    if (!challengeId || !challenge || this.isExpired(challenge)) throw new ChallengeError("the QR code has expired");
    return { challengeId, challenge };
  }

  /** One writer per step of a challenge, in any process. */
  private claim(step: string, challengeId: string, challenge: LoginChallenge): Promise<boolean> {
    return this.records.add(`${step}:${challengeId}`, 1, Math.max(1, challenge.expiresAt - this.provider.clock()) + 60_000);
  }

  private async get(challengeId: string): Promise<LoginChallenge | undefined> {
    return (await this.records.get(challengeKey(challengeId))) as LoginChallenge | undefined;
  }

  private isExpired(challenge: LoginChallenge): boolean {
    return this.provider.clock() >= challenge.expiresAt;
  }
}

/** How long an approved challenge waits at least for its page to consume it. */
const APPROVED_GRACE_MS = 30_000;

const challengeKey = (challengeId: string) => `challenge:${challengeId}`;
const scanKey = (scanToken: string) => `scan:${storeKeyHash(scanToken)}`;
