import type { LoginFile } from "../config/types.generated.ts";
import type { EidAccounts } from "./eid-accounts.ts";
import { EidError } from "./eid-error.ts";
import { EidRelyingParty, type EidRelyingPartyOptions } from "./eid-relying-party.ts";
import type { EidBeginOptions, EidPending } from "./eid-upstream.ts";
import type { EidAccount } from "./map-eid-account.ts";

/**
 * What the eID login flow needs underneath: one relying party per declared upstream, and the accounts
 * store written at every finished login. `begin` returns the upstream URL to send the browser to and
 * the pending values the caller keeps in the interaction; `finish` takes them back with the callback.
 */
export class EidBroker {
  readonly accounts: EidAccounts;
  private readonly parties = new Map<string, EidRelyingParty>();

  constructor(
    login: LoginFile,
    accounts: EidAccounts,
    /** Per-upstream options (the development upstream's start), by upstream id. */
    options: ReadonlyMap<string, EidRelyingPartyOptions> = new Map(),
  ) {
    this.accounts = accounts;
    for (const [id, upstream] of Object.entries(login.eid_upstreams ?? {}))
      this.parties.set(id, new EidRelyingParty(id, upstream, options.get(id)));
  }

  /** Starts a login at `upstream` (the login type's `upstream`), returning to `redirectUri` (this provider's eID callback). */
  begin(upstream: string, redirectUri: string, options: EidBeginOptions = {}): Promise<{ url: URL; pending: EidPending }> {
    return this.party(upstream).begin(redirectUri, options);
  }

  /** Finishes the login `pending` began, from the callback URL (or its query), and records the account. */
  async finish(callback: URL | URLSearchParams | string, pending: EidPending): Promise<EidAccount> {
    const account = await this.party(pending.upstream).finish(callback, pending);
    await this.accounts.record(pending.upstream, account);
    return account;
  }

  private party(upstream: string): EidRelyingParty {
    const party = this.parties.get(upstream);
    // Config rules make every eid login type name a declared upstream; a pending value naming another is stale.
    if (party === undefined) throw new EidError("invalid_callback", upstream, `no eID upstream "${upstream}" is declared`);
    return party;
  }
}
