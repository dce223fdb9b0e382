import type { Employee, EmployeeSource } from "./employee-source.ts";

export type { Employee };

/** Accounts that are not employees but may hold sessions and tokens: eID accounts (src/eid/eid-accounts.ts), vendor accounts (vendor-accounts.ts). */
export interface ExternalAccounts {
  owns(sub: string): boolean;
}

/**
 * Everyone who may hold a session or a token: the employees of the configured source (users.yaml or an
 * LDAP directory, employee-source.ts) and the external accounts. Every lookup may ask a directory
 * server, so every one is asynchronous and may throw DirectoryUnavailableError.
 */
export class UserDirectory {
  private readonly employees: EmployeeSource;
  private readonly external: readonly ExternalAccounts[];

  constructor(employees: EmployeeSource, ...external: ExternalAccounts[]) {
    this.employees = employees;
    this.external = external;
  }

  findByUsername(username: string): Promise<Employee | undefined> {
    return this.employees.findByUsername(username);
  }

  findBySub(sub: string): Promise<Employee | undefined> {
    return this.employees.findBySub(sub);
  }

  /** See EmployeeSource.reachable. */
  reachable(): Promise<void> {
    return this.employees.reachable();
  }

  /** See EmployeeSource.checkPassword. */
  checkPassword(employee: Employee | undefined, password: string): Promise<boolean> {
    return this.employees.checkPassword(employee, password);
  }

  /**
   * Whether `sub` names a user who may still sign in: sessions, codes and refresh tokens of anyone else
   * are dead. An eID account (a declared upstream's sub prefix, which no employee number carries) is
   * active while its upstream is declared: the upstream, not this directory, decides who may log in;
   * a vendor account (`<client_id>:<account>`) while its client may make vendor logins. External
   * accounts are asked first: they answer from memory, and a directory need not be asked about them.
   */
  async isActive(sub: string): Promise<boolean> {
    if (this.external.some((accounts) => accounts.owns(sub))) return true;
    const employee = await this.employees.findBySub(sub);
    return employee !== undefined && !employee.disabled;
  }

  /**
   * Whether an operator may record factor methods for `sub`: an employee of the directory (a disabled
   * one too, whose methods may be set up before they are enabled again) or a live external account
   * (a vendor account, whose client may make vendor logins).
   */
  async hasAccount(sub: string): Promise<boolean> {
    if (this.external.some((accounts) => accounts.owns(sub))) return true;
    return (await this.employees.findBySub(sub)) !== undefined;
  }

  /** The user's userinfo claims limited to `names`; `sub` is always the employee number. */
  claims(user: Employee, names: ReadonlySet<string>): Record<string, unknown> {
    const out: Record<string, unknown> = { sub: user.sub };
    for (const [name, value] of Object.entries(user.claims)) if (names.has(name)) out[name] = value;
    return out;
  }
}
