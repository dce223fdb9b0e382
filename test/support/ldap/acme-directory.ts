/**
 * Acme's directory as a seed for the test slapd (`startSlapd(acmeDirectory())`): organisation.ldif, and
 * on request a large generated group of contractors to page through. Names of the entries tests use.
 */
import { readFileSync } from "node:fs";
import type { SlapdOptions } from "../slapd.ts";

export const ACME_BASE_DN = "dc=acme,dc=test";
export const PEOPLE_DN = `ou=people,${ACME_BASE_DN}`;
export const GROUPS_DN = `ou=groups,${ACME_BASE_DN}`;

/** The account a user store binds as to search (organisation.ldif). */
export const SERVICE_ACCOUNT = { dn: `cn=portcullis,ou=services,${ACME_BASE_DN}`, password: "portcullis-directory-password" };

export const personDn = (uid: string): string => `uid=${uid},${PEOPLE_DN}`;
export const groupDn = (cn: string): string => `cn=${cn},${GROUPS_DN}`;

const ORGANISATION = new URL("./organisation.ldif", import.meta.url);

export interface AcmeDirectoryOptions {
  /** How many generated people the group cn=contractors holds (none, and no group, by default). */
  contractors?: number;
}

export function acmeDirectory(options: AcmeDirectoryOptions = {}): SlapdOptions {
  const contractors = options.contractors ?? 0;
  const seed = [readFileSync(ORGANISATION, "utf8")];
  if (contractors > 0) seed.push(contractorsLdif(contractors));
  return { baseDn: ACME_BASE_DN, seed };
}

/**
 * `count` people under ou=people (contractor0001, …; no password, they never log in) and the group
 * cn=contractors holding them all. Generated rather than a file: 1,200 people take some 17,000 lines.
 */
export function contractorsLdif(count: number): string {
  const uids = Array.from({ length: count }, (_, i) => `contractor${String(i + 1).padStart(4, "0")}`);
  const people = uids.map((uid, i) =>
    [
      `dn: ${personDn(uid)}`,
      "objectClass: inetOrgPerson",
      "objectClass: user",
      `uid: ${uid}`,
      `cn: Contractor ${i + 1}`,
      "sn: Contractor",
      `employeeNumber: C${String(20001 + i)}`,
      "o: Acme Ltd.",
      "employeeType: contractor",
      `sAMAccountName: ${uid}`,
      `userPrincipalName: ${uid}@acme.test`,
      "userAccountControl: 512",
    ].join("\n"),
  );
  const group = [
    `dn: ${groupDn("contractors")}`,
    "objectClass: groupOfNames",
    "objectClass: group",
    "cn: contractors",
    "sAMAccountName: contractors",
    ...uids.map((uid) => `member: ${personDn(uid)}`),
  ].join("\n");
  return [...people, group].join("\n\n");
}
