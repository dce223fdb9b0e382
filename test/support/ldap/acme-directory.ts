/**
 * Acme's directory as a seed for the test slapd (`startSlapd(acmeDirectory())`): the demo directory's
 * organisation (src/demo/directory/), and on request a large generated group of contractors to page through.
 */
import type { SlapdOptions } from "../slapd.ts";
import { acmeOrganisation, groupDn, personDn } from "../../../src/demo/directory/acme-directory.ts";

export {
  ACME_BASE_DN,
  GROUPS_DN,
  PEOPLE_DN,
  SERVICE_ACCOUNT,
  groupDn,
  personDn,
} from "../../../src/demo/directory/acme-directory.ts";

export interface AcmeDirectoryOptions {
  /** How many generated people the group cn=contractors holds (none, and no group, by default). */
  contractors?: number;
}

export function acmeDirectory(options: AcmeDirectoryOptions = {}): SlapdOptions {
  const contractors = options.contractors ?? 0;
  const organisation = acmeOrganisation();
  return contractors > 0 ? { ...organisation, seed: [...organisation.seed, contractorsLdif(contractors)] } : organisation;
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
