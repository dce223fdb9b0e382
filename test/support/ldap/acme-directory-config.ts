/**
 * Acme's directory.yaml and its `ldap` block (src/demo/directory/acme-directory-config.ts, the demo
 * directory's); the block with `overrides`, for the suites that test the directory without a provider.
 */
import type { LdapConfig } from "../../../src/users/ldap/ldap-settings.ts";
import { acmeLdapConfig as acmeBlock } from "../../../src/demo/directory/acme-directory-config.ts";

export { acmeDirectoryYaml, BIND_PASSWORD_ENV, type LoginAttribute } from "../../../src/demo/directory/acme-directory-config.ts";

/** The `ldap` block as loadConfig leaves it (defaults filled), with `overrides`. */
export function acmeLdapConfig(url: string, overrides: Partial<LdapConfig> = {}): LdapConfig {
  return { ...acmeBlock(url), ...overrides };
}
