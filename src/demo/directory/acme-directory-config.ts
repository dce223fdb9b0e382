import type { LdapConfig } from "../../users/ldap/ldap-settings.ts";
import { GROUPS_DN, PEOPLE_DN, SERVICE_ACCOUNT } from "./acme-directory.ts";

/**
 * directory.yaml for Acme's directory (organisation.ldif): where its people are, what disables them, and
 * where its entries keep each claim of the spec, once, for the demo directory, the bench's LDAP provider
 * and the tests on it; as the YAML an operator writes, and as the `ldap` block loadConfig makes of it.
 */

/** The service account's password is a secret: directory.yaml takes it from this environment variable. */
export const BIND_PASSWORD_ENV = "ACME_DIRECTORY_PASSWORD";

/** The claims mapping: where organisation.ldif keeps each claim (the two dates in the formats HR feeds write). */
export const ACME_CLAIMS: LdapConfig["claims"] = {
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
  given_name: "givenName",
  family_name: "sn",
  // slapd keeps this operational attribute itself: it changes whenever the entry does.
  updated_at: { attribute: "modifyTimestamp", from: "generalized_time" },
};

/** How people log in: OpenLDAP's uid, or AD's sAMAccountName / userPrincipalName. */
export type LoginAttribute = "uid" | "sAMAccountName" | "userPrincipalName" | "mail" | "employeeNumber";

export interface AcmeDirectoryOptions {
  loginAttribute?: LoginAttribute;
  cacheTtl?: string;
  operationTimeout?: string;
}

/** The `ldap` block for Acme's directory at `url` as loadConfig leaves it: defaults filled, the password resolved. */
export function acmeLdapConfig(url: string, options: AcmeDirectoryOptions = {}): LdapConfig {
  return {
    url,
    start_tls: false,
    bind_dn: SERVICE_ACCOUNT.dn,
    bind_password: SERVICE_ACCOUNT.password,
    connect_timeout: "2s",
    operation_timeout: options.operationTimeout ?? "5s",
    max_connections: 4,
    cache_ttl: options.cacheTtl ?? "60s",
    users: {
      base: PEOPLE_DN,
      filter: "(objectClass=user)",
      login_attribute: options.loginAttribute ?? "uid",
      sub_attribute: "employeeNumber",
    },
    disabled: { active_directory: true },
    roles: { member_of: "memberOf", base: GROUPS_DN },
    claims: ACME_CLAIMS,
  };
}

/** directory.yaml for a provider on Acme's directory at `url`, the password by ${env:} reference. */
export function acmeDirectoryYaml(url: string, options: AcmeDirectoryOptions = {}): string {
  const config = acmeLdapConfig(url, options);
  const claims = Object.entries(config.claims).map(([claim, mapping]) =>
    typeof mapping === "string"
      ? `    ${claim}: ${mapping}`
      : `    ${claim}: { attribute: ${mapping!.attribute}, from: ${(mapping as { from: string }).from} }`,
  );
  return [
    "# yaml-language-server: $schema=../schemas/directory.schema.json",
    "type: ldap",
    "ldap:",
    `  url: ${config.url}`,
    `  bind_dn: ${config.bind_dn}`,
    `  bind_password: \${env:${BIND_PASSWORD_ENV}}`,
    `  cache_ttl: ${config.cache_ttl}`,
    `  operation_timeout: ${config.operation_timeout}`,
    `  connect_timeout: ${config.connect_timeout}`,
    "  users:",
    `    base: ${config.users.base}`,
    `    filter: ${config.users.filter}`,
    `    login_attribute: ${config.users.login_attribute}`,
    `    sub_attribute: ${config.users.sub_attribute}`,
    "  disabled:",
    `    active_directory: ${config.disabled.active_directory}`,
    "  roles:",
    `    base: ${config.roles.base}`,
    "  claims:",
    ...claims,
    "",
  ].join("\n");
}
