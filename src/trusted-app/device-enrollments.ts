import type { TrustedAppServices } from "./trusted-app-services.ts";
import type { RecordStore } from "../stores/store.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import { enrollUri } from "./acmeauth-uri.ts";
import { randomToken } from "../crypto/random-token.ts";

/** A one-time enrollment token (durable: an operator may hand one out while the provider is stopped). */
interface EnrollToken {
  sub: string;
  /** The account page's enrollment waiting for this token, if any. */
  sessionId?: string;
  expiresAt: number;
}

/** An enrollment shown on the account page: what its page polls. The token is sealed: it is a secret. */
export interface EnrollSession {
  sub: string;
  tokenSealed: string;
  state: "pending" | "enrolled";
  deviceName?: string;
  expiresAt: number;
}

/** The state an enrollment page sees. */
export type EnrollSessionState = "pending" | "enrolled" | "expired";

/**
 * One-time device enrollment tokens (DESIGN "The trusted app"): the account page (or an operator)
 * issues one for a user, the app presents it once with its new public key. Tokens are stored by hash
 * and redeemed with an atomic `take`, so a token enrolls at most one device, in any process.
 *
 * The account page's enrollment is a *session*: its id is all the enrollment machine keeps (the
 * context is persisted; the token is a secret). The page fetches the URI and its QR code from the
 * qrcode plugin's routes, which hand them only to the browser of the signed-in user the session is for.
 */
export class DeviceEnrollments {
  private readonly provider: TrustedAppServices;
  private readonly tokens: RecordStore<EnrollToken>;
  private readonly sessions: RecordStore<EnrollSession>;

  constructor(provider: TrustedAppServices, tokens: RecordStore<EnrollToken>, sessions: RecordStore<EnrollSession>) {
    this.provider = provider;
    this.tokens = tokens;
    this.sessions = sessions;
  }

  /** A token for `sub` valid for `ttlMs`, and its acmeauth://enroll URI (an operator's hand-out). */
  async issue(sub: string, ttlMs: number, sessionId?: string): Promise<{ token: string; uri: string; expiresAt: number }> {
    const token = randomToken(24);
    const expiresAt = this.provider.clock() + ttlMs;
    await this.tokens.set(storeKeyHash(token), { sub, sessionId, expiresAt }, ttlMs);
    return { token, uri: enrollUri(this.provider.issuer, token), expiresAt };
  }

  /** Starts an account-page enrollment for `sub`: a session id (not a secret by itself) for the machine. */
  async startSession(sub: string, ttlMs: number): Promise<{ sessionId: string; expiresAt: number }> {
    const sessionId = randomToken(16);
    const { token, expiresAt } = await this.issue(sub, ttlMs, sessionId);
    const session: EnrollSession = {
      sub,
      tokenSealed: this.provider.secretBox.seal(token, sessionContext(sessionId)),
      state: "pending",
      expiresAt,
    };
    await this.sessions.set(sessionKey(sessionId), session, ttlMs);
    return { sessionId, expiresAt };
  }

  /** The session as its page sees it (for the user `sub` only), with the URI while it waits for the app. */
  async session(sessionId: string, sub: string): Promise<{ state: EnrollSessionState; uri?: string; deviceName?: string } | undefined> {
    const session = await this.sessions.get(sessionKey(sessionId));
    if (!session || session.sub !== sub) return undefined;
    if (session.state === "enrolled") return { state: "enrolled", deviceName: session.deviceName };
    if (this.provider.clock() >= session.expiresAt) return { state: "expired" };
    return {
      state: "pending",
      uri: enrollUri(this.provider.issuer, this.provider.secretBox.open(session.tokenSealed, sessionContext(sessionId))),
    };
  }

  /** Redeems a token once: its user and session, or undefined when unknown, used or expired. */
  async redeem(token: string): Promise<EnrollToken | undefined> {
    const found = await this.tokens.take(storeKeyHash(token));
    return found && this.provider.clock() < found.expiresAt ? found : undefined;
  }

  /** The app enrolled through the session's token: its page may finish. */
  async markEnrolled(sessionId: string, deviceName: string): Promise<void> {
    const session = await this.sessions.get(sessionKey(sessionId));
    if (!session) return;
    await this.sessions.set(sessionKey(sessionId), { ...session, state: "enrolled", deviceName }, 5 * 60_000);
  }

  /** Ends a session its page gave up on (a new QR was asked for): its token no longer enrolls. */
  async cancelSession(sessionId: string): Promise<void> {
    const session = await this.sessions.take(sessionKey(sessionId));
    if (session) await this.tokens.delete(storeKeyHash(this.provider.secretBox.open(session.tokenSealed, sessionContext(sessionId))));
  }
}

const sessionKey = (sessionId: string) => `enroll:${sessionId}`;
const sessionContext = (sessionId: string) => `trusted-app-enroll:${sessionId}`;
