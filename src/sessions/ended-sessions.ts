import type { Client } from "../oauth/client-registry.ts";
import type { RecordStore, Store } from "../stores/store.ts";

/**
 * SSO sessions that have ended (logout, prompt=force_login, a login as another user), by sid, for the
 * refresh tokens that end with them (`refresh_token_ends_with_session`). A marker in the shared store,
 * checked at every refresh of such a client, rather than a list of the session's refresh-token families
 * revoked at logout: it needs no index kept up to date on every node, and it also catches a family born
 * after the logout from a code issued before it.
 *
 * Kept in the durable revokedTokens namespace for as long as a family bound to the session can live: the
 * longest refresh-token lifetime of such a client, plus its code lifetime (a code issued just before the
 * logout may be redeemed after it).
 */
export class EndedSessions {
  private readonly clients: () => Iterable<Client>;
  private readonly marks: RecordStore<true>;

  /** `clients` is read at each record: after a reload (src/reload/) the new clients' lifetimes count. */
  constructor(store: Store, clients: () => Iterable<Client>) {
    this.clients = clients;
    this.marks = store.namespace("revokedTokens");
  }

  /** Records that the session with this sid has ended (nothing to keep when no client's refresh tokens end with it). */
  async record(sid: string): Promise<void> {
    const keepMs = keepFor(this.clients()) * 1000;
    if (keepMs > 0) await this.marks.set(sessionKey(sid), true, keepMs);
  }

  async hasEnded(sid: string): Promise<boolean> {
    return (await this.marks.get(sessionKey(sid))) === true;
  }
}

/** Seconds: the longest a family bound to a session can live, over the clients whose refresh tokens end with it. */
function keepFor(clients: Iterable<Client>): number {
  let keep = 0;
  for (const client of clients) {
    if (client.offlineAccess && client.refreshTokenEndsWithSession)
      keep = Math.max(keep, client.lifetimes.refreshToken + client.lifetimes.authorizationCode);
  }
  return keep;
}

// revokedTokens also holds `jti:` and `family:` keys; a sid is base64url (no ':').
const sessionKey = (sid: string) => `session:${sid}`;
