import { constantTimeEqual } from "../crypto/constant-time-equal.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import { randomToken } from "../crypto/random-token.ts";

/** What the end-session request decided before asking the user; carried out once the user confirms. */
export interface LogoutOutcome {
  /** post_logout_redirect_uri with state, already validated against a valid id_token_hint. */
  redirect?: string;
  /** The client that asked (for its name on the pages). */
  clientId?: string;
  /** The UI language of the request. */
  lang?: string;
}

interface LogoutConfirmation extends LogoutOutcome {
  /** Binds the record to the browser: a hash of its session cookie value. */
  bind: string;
}

/** How long the confirmation page stays usable. */
const CONFIRMATION_TTL_MS = 10 * 60 * 1000;

// A separate label keeps this hash of the cookie distinct from the session store's key for it.
const bindingOf = (sessionCookie: string) => storeKeyHash(`logout-confirmation\u0000${sessionCookie}`);

/**
 * The CSRF protection of the logout confirmation page: a short-lived, single-use record per page,
 * stored under the hash of a random token (the form's hidden field) and bound to the browser's session
 * cookie. A POST is accepted only with the token of a page this same browser session was shown: a forged
 * cross-site POST has no token, and a token fetched by someone else is bound to their cookie.
 */
export class LogoutConfirmations {
  private readonly records: RecordStore<LogoutConfirmation>;

  constructor(store: Store) {
    this.records = store.namespace("logoutRequests");
  }

  /** Records a pending logout for the browser holding `sessionCookie`; returns the CSRF token for its form. */
  async create(sessionCookie: string, outcome: LogoutOutcome): Promise<string> {
    const token = randomToken(32);
    await this.records.set(storeKeyHash(token), { ...outcome, bind: bindingOf(sessionCookie) }, CONFIRMATION_TTL_MS);
    return token;
  }

  /**
   * Takes the pending logout of `token` (single use) if it was made for this browser's session cookie;
   * undefined for a missing, unknown, used or expired token, or one made for another browser.
   */
  async take(token: string | undefined, sessionCookie: string | undefined): Promise<LogoutOutcome | undefined> {
    if (!token || token.length > 128 || !sessionCookie) return undefined;
    const record = await this.records.take(storeKeyHash(token));
    if (!record || !constantTimeEqual(record.bind, bindingOf(sessionCookie))) return undefined;
    const { bind: _bind, ...outcome } = record;
    return outcome;
  }
}
