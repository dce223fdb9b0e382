import type { UsersFile } from "../config/types.generated.ts";

export type UserRecord = UsersFile["users"][number];

/** The embedded employee directory: users by login name (case-insensitive) and by subject. */
export class UserDirectory {
  private readonly byUsername = new Map<string, UserRecord>();
  private readonly bySub = new Map<string, UserRecord>();

  constructor(file: UsersFile) {
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

  /** Whether `sub` names a user who may still sign in: sessions, codes and refresh tokens of anyone else are dead. */
  isActive(sub: string): boolean {
    const user = this.bySub.get(sub);
    return user !== undefined && !user.disabled;
  }

  /** The user's userinfo claims limited to `names`; `sub` is always the employee number. */
  claims(user: UserRecord, names: ReadonlySet<string>): Record<string, unknown> {
    const out: Record<string, unknown> = { sub: user.sub };
    for (const [name, value] of Object.entries(user.claims)) if (names.has(name)) out[name] = value;
    return out;
  }
}
