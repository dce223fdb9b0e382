import type { DirectoryFile, UsersFile } from "../config/types.generated.ts";
import { EmbeddedEmployees } from "./embedded-employees.ts";
import type { EmployeeSource } from "./employee-source.ts";

/** What choosing the employees reads of a loaded configuration. */
export interface EmployeeConfig {
  /** The configuration directory (a relative `ca_file` is under it). */
  dir: string;
  directory: DirectoryFile;
  users: UsersFile;
}

/** The employees a configuration serves: users.yaml's, or those of the LDAP directory opened for it. */
export function configuredEmployees(config: EmployeeConfig, ldapEmployees: EmployeeSource | undefined): EmployeeSource {
  if (config.directory.type === "embedded") return new EmbeddedEmployees(config.users);
  if (ldapEmployees === undefined) throw new Error("directory.yaml chooses an LDAP directory, but none was opened");
  return ldapEmployees;
}
