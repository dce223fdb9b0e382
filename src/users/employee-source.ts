import type { UserClaims } from "../config/types.generated.ts";

/**
 * The userinfo claims of an employee, in the spec's formats (users.schema.json's `claims`), with what a
 * directory derives: `preferred_username` (the login name) and `email_verified` (see embedded-employees.ts).
 */
export type EmployeeClaims = UserClaims & { preferred_username?: string };

/** An employee as a directory knows them: what login, userinfo and the account pages read. */
export interface Employee {
  /** The login name the directory matches (users.yaml `username`; LDAP: the login attribute's value). */
  username: string;
  /** The employee number. */
  sub: string;
  claims: EmployeeClaims;
  /** A disabled account cannot log in by any method and loses its sessions and tokens at their next use. */
  disabled: boolean;
  /** Whether the password method can check a password for this employee (users.yaml: a hash is set). */
  hasPassword: boolean;
}

/**
 * Where the employees come from: users.yaml (embedded-employees.ts) or an LDAP directory
 * (ldap/ldap-employees.ts). Lookups are asynchronous because a directory is a server; one that cannot
 * be asked throws DirectoryUnavailableError, which requests answer with 503 `temporarily_unavailable`.
 */
export interface EmployeeSource {
  /** The employee with this login name (matched case-insensitively), disabled ones included. */
  findByUsername(username: string): Promise<Employee | undefined>;
  findBySub(sub: string): Promise<Employee | undefined>;
  /**
   * Resolves when a password can be checked now; throws DirectoryUnavailableError while the directory is
   * known to be down. Asked before a failed attempt is counted against the account: an outage must not
   * lock people out.
   */
  reachable(): Promise<void>;
  /**
   * Whether `password` is the employee's. `employee` undefined (unknown, disabled or locked) still does
   * the work of a check and answers false, so a caller's timing tells nothing about which it was.
   */
  checkPassword(employee: Employee | undefined, password: string): Promise<boolean>;
}
