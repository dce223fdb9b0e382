import type { UsersFile } from "../config/types.generated.ts";
import { hashPassword, verifyPassword } from "../crypto/password-hash.ts";
import type { Employee, EmployeeClaims, EmployeeSource } from "./employee-source.ts";

// Verified against when there is no real hash to check, so unknown, disabled and locked accounts
// cost the same scrypt time as a wrong password and cannot be told apart by timing.
const decoyHash = hashPassword("portcullis-decoy-password");

/**
 * The claims of a users.yaml entry with the ones derived from it: `preferred_username` is the login name,
 * and `email_verified` is true for an address unless the entry says otherwise, because an employee's
 * address is assigned by the organisation (docs/decisions.md "email_verified").
 */
function derivedClaims(user: UsersFile["users"][number]): EmployeeClaims {
  const claims: EmployeeClaims = { ...user.claims, preferred_username: user.username };
  if (claims.email !== undefined) claims.email_verified ??= true;
  else delete claims.email_verified;
  return claims;
}

/** The employees listed in users.yaml: by login name (case-insensitive) and by subject, held in memory. */
export class EmbeddedEmployees implements EmployeeSource {
  private readonly byUsername = new Map<string, Employee>();
  private readonly bySub = new Map<string, Employee>();
  private readonly hashes = new Map<string, string>();

  constructor(file: UsersFile) {
    for (const user of file.users) {
      const employee: Employee = {
        username: user.username,
        sub: user.sub,
        claims: derivedClaims(user),
        disabled: user.disabled,
        hasPassword: user.password_hash !== undefined,
      };
      this.byUsername.set(user.username.toLowerCase(), employee);
      this.bySub.set(user.sub, employee);
      if (user.password_hash !== undefined) this.hashes.set(user.sub, user.password_hash);
    }
  }

  async findByUsername(username: string): Promise<Employee | undefined> {
    return this.byUsername.get(username.toLowerCase());
  }

  async findBySub(sub: string): Promise<Employee | undefined> {
    return this.bySub.get(sub);
  }

  /** Always: the list is in memory. */
  async reachable(): Promise<void> {}

  async checkPassword(employee: Employee | undefined, password: string): Promise<boolean> {
    const hash = employee === undefined ? undefined : this.hashes.get(employee.sub);
    const matches = await verifyPassword(password, hash ?? (await decoyHash));
    return hash !== undefined && matches;
  }
}
