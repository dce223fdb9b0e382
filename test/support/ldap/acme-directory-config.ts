/**
 * directory.yaml for Acme's test directory (organisation.ldif): the mapping of its attributes to the
 * spec's claims, once, for the suites that start a provider on it and those that test the directory alone.
 */
import type { LdapConfig } from "../../../src/users/ldap/ldap-settings.ts";
import { GROUPS_DN, PEOPLE_DN, SERVICE_ACCOUNT } from "./acme-directory.ts";

/** The password's environment variable the YAML references (a secret never stands in the file). */
export const BIND_PASSWORD_ENV = "ACME_DIRECTORY_PASSWORD";

/** The claims mapping of every variant: where organisation.ldif keeps each claim. */
const CLAIMS: LdapConfig["claims"] = {
  emp_no: "employeeNumber",
  name: "cn",
  area: "l",
  bg: "businessCategory",
  bu: "ou",
  company: "o",
  cost_code: "departmentNumber",
  birthdate: { attribute: "extensionAttribute1", from: "iso_date" },
  class: "employeeType",
  job_title: "title",
  hiredate: { attribute: "extensionAttribute2", from: "generalized_time" },
  email: "mail",
  picture: "labeledURI",
};

/** How people log in: OpenLDAP's uid, or AD's sAMAccountName / userPrincipalName. */
export type LoginAttribute = "uid" | "sAMAccountName" | "userPrincipalName" | "mail" | "employeeNumber";

/** The `ldap` block as loadConfig leaves it (defaults filled), for tests of the directory on its own. */
export function acmeLdapConfig(url: string, overrides: Partial<LdapConfig> = {}): LdapConfig {
  return {
    url,
    start_tls: false,
    bind_dn: SERVICE_ACCOUNT.dn,
    bind_password: SERVICE_ACCOUNT.password,
    connect_timeout: "5s",
    operation_timeout: "5s",
    max_connections: 4,
    cache_ttl: "60s",
    users: { base: PEOPLE_DN, filter: "(objectClass=inetOrgPerson)", login_attribute: "uid", sub_attribute: "employeeNumber" },
    disabled: { active_directory: true },
    roles: { member_of: "memberOf", base: GROUPS_DN },
    claims: CLAIMS,
    ...overrides,
  };
}

/** directory.yaml for a provider on the directory at `url`, the password by ${env:} reference. */
export function acmeDirectoryYaml(
  url: string,
  options: { loginAttribute?: LoginAttribute; cacheTtl?: string; operationTimeout?: string } = {},
): string {
  const claims = Object.entries(CLAIMS).map(([claim, mapping]) =>
    typeof mapping === "string"
      ? `    ${claim}: ${mapping}`
      : `    ${claim}: { attribute: ${mapping!.attribute}, from: ${(mapping as { from: string }).from} }`,
  );
  return [
    "# yaml-language-server: $schema=../schemas/directory.schema.json",
    "type: ldap",
    "ldap:",
    `  url: ${url}`,
    `  bind_dn: ${SERVICE_ACCOUNT.dn}`,
    `  bind_password: \${env:${BIND_PASSWORD_ENV}}`,
    `  cache_ttl: ${options.cacheTtl ?? "60s"}`,
    `  operation_timeout: ${options.operationTimeout ?? "5s"}`,
    "  connect_timeout: 2s",
    "  users:",
    `    base: ${PEOPLE_DN}`,
    "    filter: (objectClass=user)",
    `    login_attribute: ${options.loginAttribute ?? "uid"}`,
    "    sub_attribute: employeeNumber",
    "  disabled:",
    "    active_directory: true",
    "  roles:",
    `    base: ${GROUPS_DN}`,
    "  claims:",
    ...claims,
    "",
  ].join("\n");
}
