import { readFileSync } from "node:fs";
import type { SlapdOptions } from "./slapd.ts";

/**
 * Acme's directory, the demo's people in an LDAP directory (organisation.ldif): alice and bob of
 * config/users.yaml with the same passwords, numbers and claims, carol (disabled), dana (only here), the
 * role groups and the service account the provider binds as. The names of the entries it holds.
 */

export const ACME_BASE_DN = "dc=acme,dc=test";
export const PEOPLE_DN = `ou=people,${ACME_BASE_DN}`;
export const GROUPS_DN = `ou=groups,${ACME_BASE_DN}`;

/** The account a user store binds as to search (organisation.ldif). */
export const SERVICE_ACCOUNT = { dn: `cn=portcullis,ou=services,${ACME_BASE_DN}`, password: "portcullis-directory-password" };

export const personDn = (uid: string): string => `uid=${uid},${PEOPLE_DN}`;
export const groupDn = (cn: string): string => `cn=${cn},${GROUPS_DN}`;

const ORGANISATION = new URL("./organisation.ldif", import.meta.url);

/** Acme's organisation as slapd's seed (`startSlapd(acmeOrganisation())`). */
export function acmeOrganisation(): SlapdOptions {
  return { baseDn: ACME_BASE_DN, seed: [readFileSync(ORGANISATION, "utf8")] };
}
