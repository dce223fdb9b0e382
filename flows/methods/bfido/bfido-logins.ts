import { webauthnLibrary } from "../fido/webauthn-library.ts";
import { checkAssertion } from "../fido/authentication.ts";
import type { StoredCredential } from "../fido/fido-enrollment-record.ts";
import type { FidoSettings, RelyingParty } from "../fido/fido-settings.ts";
import type { BfidoCredential } from "./bfido-credential.ts";
import { bfidoUri, randomToken, storeKeyHash, type Device, type PluginContext } from "../../../src/plugin-contract/index.ts";

/**
 * A must_bfido login QR. Like the qrcode method's challenges it has two names: the *login id*, which
 * only the login page knows (it polls by it), and the WebAuthn challenge in the QR code, which the app
 * signs over. The app's answer is checked once (an atomic claim), and a verified login is consumed
 * once (`take`), so it logs one browser in.
 */
interface BfidoLogin {
  state: "pending" | "verified" | "refused";
  /** The WebAuthn challenge (base64url), in the QR code. */
  challenge: string;
  ttlMs: number;
  expiresAt: number;
  /** Set when verified: the user whose trusted-app credential answered. */
  sub?: string;
}

/** What the login page (and its machine) may know of a login. */
export type BfidoLoginView = { state: "pending"; uri: string } | { state: "verified" | "refused" | "expired" };

/** An answer of the app that was refused; `reason` is safe to tell the app. */
export class BfidoAnswerError extends Error {
  static readonly code: string = "ERR_BFIDO_ANSWER";
  readonly code: string = "ERR_BFIDO_ANSWER";
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

export class BfidoLogins {
  private readonly context: PluginContext<FidoSettings>;
  private readonly rp: RelyingParty;

  constructor(context: PluginContext<FidoSettings>, rp: RelyingParty) {
    this.context = context;
    this.rp = rp;
  }

  /** A fresh login QR: no credential list (the app finds its own credential for our RP id). */
  async create(): Promise<{ loginId: string; expiresAt: number }> {
    const options = await (await webauthnLibrary()).generateAuthenticationOptions({
      rpID: this.rp.id,
      allowCredentials: [],
      userVerification: this.rp.userVerification,
      timeout: this.rp.timeoutMs,
    });
    const loginId = randomToken(16);
    const ttlMs = this.rp.timeoutMs;
    const login: BfidoLogin = { state: "pending", challenge: options.challenge, ttlMs, expiresAt: this.now() + ttlMs };
    await this.records().set(challengeKey(options.challenge), loginId, ttlMs + 60_000);
    await this.records().set(loginKey(loginId), login, ttlMs + 60_000);
    return { loginId, expiresAt: login.expiresAt };
  }

  /** The login as its page sees it (unknown ids look expired). */
  async view(loginId: string): Promise<BfidoLoginView> {
    const login = (await this.records().get(loginKey(loginId))) as BfidoLogin | undefined;
    if (!login || (login.state === "pending" && this.now() >= login.expiresAt)) return { state: "expired" };
    return login.state === "pending"
      ? { state: "pending", uri: bfidoUri(this.context.services.issuer, login.challenge) }
      : { state: login.state };
  }

  /**
   * The app answers the QR code: a WebAuthn assertion over its challenge by a credential the user
   * registered through this very device (`sub` and `device` come from the device-signed request).
   * Counted against the user's bfido attempts; a refusal spends the QR code (the page shows a new one).
   */
  async answer(challenge: unknown, sub: string, device: Device, credentialJson: string): Promise<void> {
    if (typeof challenge !== "string" || challenge.length > 128) throw new BfidoAnswerError("the QR code is not valid");
    const loginId = (await this.records().get(challengeKey(challenge))) as string | undefined;
    const login = loginId === undefined ? undefined : ((await this.records().get(loginKey(loginId))) as BfidoLogin | undefined);
    if (!loginId || !login || this.now() >= login.expiresAt) throw new BfidoAnswerError("the QR code has expired");
    if (login.state !== "pending" || !(await this.records().add(`bfido-answered:${loginId}`, 1, login.ttlMs + 60_000)))
      throw new BfidoAnswerError("the QR code was already answered");
    const allowed = await this.context.attempts.tryAttempt(sub);
    const heldByDevice = (stored: StoredCredential) => (stored as BfidoCredential).deviceId === device.id;
    const verified = allowed && (await checkAssertion(this.context, this.rp, sub, login.challenge, credentialJson, heldByDevice));
    const settled: BfidoLogin = verified ? { ...login, state: "verified", sub } : { ...login, state: "refused" };
    await this.records().set(loginKey(loginId), settled, login.ttlMs + 60_000);
    if (!verified) throw new BfidoAnswerError("the FIDO2 assertion was not accepted");
  }

  /** Consumes a verified login (once, in any process): its user. */
  async consumeVerified(loginId: string): Promise<string | undefined> {
    const login = (await this.records().take(loginKey(loginId))) as BfidoLogin | undefined;
    return login?.state === "verified" ? login.sub : undefined;
  }

  /** Forgets a login whose page moved on (a new QR). */
  async discard(loginId: string): Promise<void> {
    const login = (await this.records().take(loginKey(loginId))) as BfidoLogin | undefined;
    if (login) await this.records().delete(challengeKey(login.challenge));
  }

  private records() {
    return this.context.services.store.namespace<BfidoLogin | string | number>("methodChallenges");
  }

  private now(): number {
    return this.context.services.clock();
  }
}

const loginKey = (loginId: string) => `bfido-login:${loginId}`;
const challengeKey = (challenge: string) => `bfido-qr:${storeKeyHash(challenge)}`;
