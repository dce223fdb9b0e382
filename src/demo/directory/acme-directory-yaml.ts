import type { LdapConfig } from "../../users/ldap/ldap-settings.ts";
import { GROUPS_DN, PEOPLE_DN, SERVICE_ACCOUNT } from "./acme-directory.ts";

/**
 * directory.yaml for Acme's directory (organisation.ldif): where its entries keep each claim of the spec,
 * once, for the demo directory, the bench's LDAP provider and the tests on it.
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
};

/** How people log in: OpenLDAP's uid, or AD's sAMAccountName / userPrincipalName. */
export type LoginAttribute = "uid" | "sAMAccountName" | "userPrincipalName" | "mail" | "employeeNumber";

export interface AcmeDirectoryYamlOptions {
  loginAttribute?: LoginAttribute;
  cacheTtl?: string;
  operationTimeout?: string;
}

/** directory.yaml for a provider on Acme's directory at `url`, the password by ${env:} reference. */
export function acmeDirectoryYaml(url: string, options: AcmeDirectoryYamlOptions = {}): string {
  const claims = Object.entries(ACME_CLAIMS).map(([claim, mapping]) =>
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
