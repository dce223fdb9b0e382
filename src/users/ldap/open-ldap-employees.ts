import type { Logger } from "pino";
import type { Clock } from "../../time/clock.ts";
import type { EmployeeConfig } from "../configured-employees.ts";
import { LdapEmployees } from "./ldap-employees.ts";
import { ldapSettings } from "./ldap-settings.ts";

/**
 * The LDAP directory directory.yaml chooses, opened (connections are made at first use), or undefined for
 * the embedded list. Its owner closes it. A process opens it once: every policy snapshot shares it and its
 * cache (directory.yaml changes only with a restart).
 */
export function openLdapEmployees(config: EmployeeConfig, clock: Clock, logger?: Logger): LdapEmployees | undefined {
  if (config.directory.type !== "ldap") return undefined;
  return new LdapEmployees(ldapSettings(config.directory.ldap!, config.dir), clock, logger);
}
