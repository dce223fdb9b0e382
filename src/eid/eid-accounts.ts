import type { Clock } from "../time/clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import type { EidAccount } from "./map-eid-account.ts";

/** The stored record of one eID account. */
export interface EidAccountRecord {
  sub: string;
  /** The upstream that vouched for it (an id under eid_upstreams). */
  upstream: string;
  claims: Record<string, unknown>;
  /** Epoch ms of the first and of the latest login. */
  createdAt: number;
  updatedAt: number;
}

/**
 * eID accounts are not in the employee directory: their claims come from the upstream at each login and
 * are kept here (a durable kind, shared by every node on Redis or PostgreSQL), so userinfo and SSO logins
 * to other clients answer with what the upstream said last. Keyed by the local sub (sub_prefix + upstream sub).
 */
export class EidAccounts {
  private readonly clock: Clock;
  /** The declared upstreams' sub prefixes: which subs are eID accounts at all. */
  private readonly subPrefixes: readonly string[];
  private readonly records: RecordStore<EidAccountRecord>;

  constructor(store: Store, clock: Clock, subPrefixes: readonly string[]) {
    this.clock = clock;
    this.subPrefixes = subPrefixes;
    this.records = store.namespace("eidAccounts");
  }

  /** Whether `sub` is of an eID account of a declared upstream (by its prefix; employee numbers never carry one). */
  owns(sub: string): boolean {
    return this.subPrefixes.some((prefix) => sub.startsWith(prefix));
  }

  /** Writes the account as a finished login found it: the claims replace the previous ones entirely. */
  async record(upstream: string, account: EidAccount): Promise<EidAccountRecord> {
    const now = this.clock();
    const existing = await this.records.get(account.sub);
    const record: EidAccountRecord = {
      sub: account.sub,
      upstream,
      claims: account.claims,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await this.records.set(account.sub, record);
    return record;
  }

  /** The account's mapped claims (without sub), or undefined when `sub` is no known eID account. */
  async claims(sub: string): Promise<Record<string, unknown> | undefined> {
    if (!this.owns(sub)) return undefined;
    return (await this.records.get(sub))?.claims;
  }

  /** The userinfo answer for the account: sub and the claims among `names` (what the token's scopes release), like an employee's. */
  async userinfo(sub: string, names: ReadonlySet<string>): Promise<Record<string, unknown> | undefined> {
    const claims = await this.claims(sub);
    if (claims === undefined) return undefined;
    const out: Record<string, unknown> = { sub };
    // sub is never a mapped claim (schema), and never taken from the record's claims either.
    for (const [name, value] of Object.entries(claims)) if (name !== "sub" && names.has(name)) out[name] = value;
    // email_verified only as the upstream said it (a mapped boolean); an address it did not vouch for is unverified.
    if (names.has("email_verified") && claims.email !== undefined) out.email_verified = claims.email_verified === true;
    else delete out.email_verified;
    return out;
  }
}
