import type { Entry } from "ldapts";
import type { Employee, EmployeeClaims } from "../employee-source.ts";
import {
  DATE_CLAIM_SEPARATORS,
  type DirectoryDateFormat,
  formatDateClaim,
  parseDirectoryDate,
  parseDirectoryTime,
  TIME_CLAIMS,
} from "./directory-dates.ts";
import type { LdapConfig } from "./ldap-settings.ts";

/** Subs are employee numbers: what users.yaml allows (users.schema.json), so both directories name people alike. */
const SUB_SHAPE = /^[A-Za-z0-9._-]{1,64}$/;
/** Active Directory's userAccountControl flag ACCOUNTDISABLE. */
const ACCOUNT_DISABLE = 2;

/** An employee read from the directory, with the entry's DN that a password check binds as. */
export interface DirectoryEmployee {
  employee: Employee;
  dn: string;
}

/** A mapped claim whose attribute the entry lacks or whose value does not parse (check-config names them). */
export interface UnmappedClaim {
  claim: string;
  attribute: string;
  problem: "missing" | "unparsable";
}

/** The attributes a search for people asks for: everything the mapping reads, and nothing else. */
export function requestedAttributes(config: LdapConfig): string[] {
  const names = [config.users.login_attribute, config.users.sub_attribute, config.roles.member_of];
  if (config.disabled.active_directory) names.push("userAccountControl");
  if (config.disabled.attribute) names.push(config.disabled.attribute.name);
  for (const mapping of Object.values(config.claims)) names.push(attributeOf(mapping));
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/**
 * The employee an entry describes under the mapping, or undefined when it names none (no login name, or
 * no sub of the employee-number shape). `unmapped` collects the claims left out, for check-config.
 */
export function employeeOf(entry: Entry, config: LdapConfig, unmapped: UnmappedClaim[] = []): DirectoryEmployee | undefined {
  const values = attributeReader(entry);
  const username = values(config.users.login_attribute)[0];
  const sub = values(config.users.sub_attribute)[0];
  if (username === undefined || sub === undefined || !SUB_SHAPE.test(sub)) return undefined;
  const groups = values(config.roles.member_of);
  const claims: Record<string, unknown> = {};
  for (const [claim, mapping] of Object.entries(config.claims)) {
    const attribute = attributeOf(mapping);
    const value = values(attribute)[0];
    if (value === undefined) {
      unmapped.push({ claim, attribute, problem: "missing" });
      continue;
    }
    if (typeof mapping === "string" || !("from" in mapping)) {
      claims[claim] = value;
      continue;
    }
    const parsed = TIME_CLAIMS.has(claim) ? parseDirectoryTime(value, mapping.from) : dateClaim(claim, value, mapping.from);
    if (parsed === undefined) unmapped.push({ claim, attribute, problem: "unparsable" });
    else claims[claim] = parsed;
  }
  // The directory's addresses are the organisation's own (docs/decisions.md "email_verified"); the login name is the preferred username.
  if (typeof claims.email === "string") claims.email_verified = true;
  claims.preferred_username = username;
  const roles = rolesOf(groups, config.roles);
  if (roles.length > 0) claims.role = roles;
  return {
    dn: entry.dn,
    employee: { username, sub, claims: claims as EmployeeClaims, disabled: isDisabled(values, groups, config.disabled), hasPassword: true },
  };
}

/** A calendar-date claim (birthdate, hiredate) in the spec's format, or undefined when the value is not a date. */
function dateClaim(claim: string, value: string, from: DirectoryDateFormat): string | undefined {
  const date = parseDirectoryDate(value, from);
  return date && formatDateClaim(claim as keyof typeof DATE_CLAIM_SEPARATORS, date);
}

/** Any one of the declared rules disables an account. */
function isDisabled(values: (name: string) => string[], groups: string[], rules: LdapConfig["disabled"]): boolean {
  if (rules.active_directory) {
    const flags = Number(values("userAccountControl")[0] ?? "0");
    // A bit test, not a comparison with 514: AD sets other flags beside it (DONT_EXPIRE_PASSWORD, ...).
    if (Number.isSafeInteger(flags) && (flags & ACCOUNT_DISABLE) !== 0) return true;
  }
  if (rules.attribute) {
    const present = values(rules.attribute.name);
    const wanted = rules.attribute.values?.map((value) => value.toLowerCase());
    if (wanted === undefined ? present.length > 0 : present.some((value) => wanted.includes(value.toLowerCase()))) return true;
  }
  if (rules.group === undefined) return false;
  const disabling = normaliseDn(rules.group);
  return groups.some((dn) => normaliseDn(dn) === disabling);
}

/** The role names of the user's groups: those under `base`, named by `names` or their first RDN's value (as written). */
function rolesOf(groups: string[], roles: LdapConfig["roles"]): string[] {
  const base = roles.base === undefined ? undefined : normaliseDn(roles.base);
  const names = new Map(Object.entries(roles.names ?? {}).map(([dn, role]) => [normaliseDn(dn), role]));
  const out = groups
    .filter((dn) => base === undefined || normaliseDn(dn).endsWith(`,${base}`))
    .flatMap((dn) => {
      const role = names.get(normaliseDn(dn)) ?? firstRdnValue(dn);
      return role === undefined || role === "" ? [] : [role];
    });
  return [...new Set(out)];
}

/** A reader of the entry's attribute values by name, case-insensitively (LDAP names are), as strings. */
function attributeReader(entry: Entry): (name: string) => string[] {
  const byName = new Map<string, string[]>();
  for (const [name, raw] of Object.entries(entry)) {
    if (name === "dn") continue;
    const list = Array.isArray(raw) ? raw : [raw];
    byName.set(
      name.toLowerCase(),
      list.map((value) => (Buffer.isBuffer(value) ? value.toString("utf8") : String(value))),
    );
  }
  return (name) => byName.get(name.toLowerCase()) ?? [];
}

function attributeOf(mapping: LdapConfig["claims"][keyof LdapConfig["claims"]]): string {
  return typeof mapping === "string" ? mapping : mapping!.attribute;
}

/**
 * A DN compared the way directories write them back: lower-cased, without spaces around `,` and `=`.
 * (A full RFC 4514 normalisation would also undo escapes; group DNs of a real directory do not differ in those.)
 */
export function normaliseDn(dn: string): string {
  return dn
    .trim()
    .toLowerCase()
    .replace(/\s*([,=])\s*/g, "$1");
}

function firstRdnValue(dn: string): string | undefined {
  const match = /^[^=,]+=((?:\\.|[^,])*)/.exec(dn);
  return match?.[1]?.replace(/\\(.)/g, "$1");
}
