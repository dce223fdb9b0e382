/**
 * Acme's directory.yaml (src/demo/directory/acme-directory-yaml.ts, the demo directory's), and the same
 * `ldap` block as an object for the suites that test the directory without a provider.
 */
import type { LdapConfig } from "../../../src/users/ldap/ldap-settings.ts";
import { ACME_CLAIMS } from "../../../src/demo/directory/acme-directory-yaml.ts";
import { GROUPS_DN, PEOPLE_DN, SERVICE_ACCOUNT } from "./acme-directory.ts";

export { acmeDirectoryYaml, BIND_PASSWORD_ENV, type LoginAttribute } from "../../../src/demo/directory/acme-directory-yaml.ts";

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
    claims: ACME_CLAIMS,
    ...overrides,
  };
}
