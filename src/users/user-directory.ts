import type { UsersFile } from "../config/types.generated.ts";

export type UserRecord = UsersFile["users"][number];

/** Accounts that are not employees but may hold sessions and tokens: eID accounts (src/eid/eid-accounts.ts), vendor accounts (vendor-accounts.ts). */
export interface ExternalAccounts {
  owns(sub: string): boolean;
}

/** The embedded employee directory: users by login name (case-insensitive) and by subject. */
export class UserDirectory {
  private readonly byUsername = new Map<string, UserRecord>();
  private readonly bySub = new Map<string, UserRecord>();
  private readonly external: readonly ExternalAccounts[];

  constructor(file: UsersFile, ...external: ExternalAccounts[]) {
    this.external = external;
    for (const u of file.users) {
      this.byUsername.set(u.username.toLowerCase(), u);
      this.bySub.set(u.sub, u);
    }
  }

  findByUsername(username: string): UserRecord | undefined {
    return this.byUsername.get(username.toLowerCase());
  }

  findBySub(sub: string): UserRecord | undefined {
    return this.bySub.get(sub);
  }

  /**
   * Whether `sub` names a user who may still sign in: sessions, codes and refresh tokens of anyone else
   * are dead. An eID account (a declared upstream's sub prefix, which no employee number carries) is
   * active while its upstream is declared: the upstream, not this directory, decides who may log in;
   * a vendor account (`<client_id>:<account>`) while its client may make vendor logins.
   */
  isActive(sub: string): boolean {
    const user = this.bySub.get(sub);
    if (user !== undefined) return !user.disabled;
    return this.external.some((accounts) => accounts.owns(sub));
  }

  /**
   * Whether an operator may record factor methods for `sub`: an employee of the directory (a disabled
   * one too, whose methods may be set up before they are enabled again) or a live external account
   * (a vendor account, whose client may make vendor logins).
   */
  hasAccount(sub: string): boolean {
    return this.bySub.has(sub) || this.external.some((accounts) => accounts.owns(sub));
  }

  /** The user's userinfo claims limited to `names`; `sub` is always the employee number. */
  claims(user: UserRecord, names: ReadonlySet<string>): Record<string, unknown> {
    const out: Record<string, unknown> = { sub: user.sub };
    for (const [name, value] of Object.entries(user.claims)) if (names.has(name)) out[name] = value;
    return out;
  }
}
