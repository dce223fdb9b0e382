import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Debian's layout: the schemas shipped with slapd, and its backends and overlays built as modules. */
export const SCHEMA_DIR = "/etc/ldap/schema";
const MODULE_DIR = "/usr/lib/ldap";
/** Active Directory's account attributes for OpenLDAP (the file says which and why). */
const AD_COMPAT_SCHEMA = fileURLToPath(new URL("./ad-compat.schema", import.meta.url));

/**
 * The most entries one search answers without paging, to anyone but the admin: Active Directory's
 * default MaxPageSize. A paged search is not capped, as in AD, so only paging reads a larger group whole.
 */
export const SIZE_LIMIT = 1000;

/** Who the one database belongs to. */
export interface SlapdDatabase {
  /** The suffix: every entry lies under it. */
  baseDn: string;
  /** The rootdn: no access rules and no size limit apply to it. */
  adminDn: string;
  adminPassword: string;
}

/**
 * slapd.conf for one server in `dir`, everything it writes under `dir`: no pid file under /var/run, no
 * ldapi socket, no dropping of privileges, nothing to syslog; so it neither needs nor disturbs a system
 * slapd. It answers as Active Directory does where a user store can tell (size limit, disabled accounts,
 * anonymous access, memberOf).
 */
export function slapdConf(dir: string, database: SlapdDatabase): string {
  return [
    ...["core", "cosine", "inetorgperson", "nis", "dyngroup"].map((name) => `include ${SCHEMA_DIR}/${name}.schema`),
    `include ${AD_COMPAT_SCHEMA}`,
    `pidfile ${join(dir, "slapd.pid")}`,
    `argsfile ${join(dir, "slapd.args")}`,
    // Nothing to syslog: a developer's journal is no place for a demo's or a test run's connections.
    "loglevel none",
    `modulepath ${MODULE_DIR}`,
    "moduleload back_mdb",
    "moduleload dynlist",
    // AD's MaxPageSize for a plain search; the total of a paged one unlimited (AD's default has none).
    `sizelimit size.soft=${SIZE_LIMIT} size.hard=${SIZE_LIMIT} size.prtotal=unlimited`,
    // AD refuses a bind to a disabled account (userAccountControl bit 2, ACCOUNTDISABLE): here no one
    // may use such an entry's password, so its bind fails with invalidCredentials as in AD.
    "access to attrs=userPassword filter=(userAccountControl:1.2.840.113556.1.4.803:=2) by * none",
    "access to attrs=userPassword by anonymous auth by * none",
    // As in AD, nothing for anonymous clients: a user store binds as its service account to search.
    "access to * by users read by * none",
    "database mdb",
    `suffix "${database.baseDn}"`,
    `rootdn "${database.adminDn}"`,
    `rootpw ${database.adminPassword}`,
    `directory ${join(dir, "data")}`,
    // The map's upper bound, not an allocation; a demo or test directory never comes near it.
    "maxsize 268435456",
    // A throwaway database: no fsync per write.
    "dbnosync",
    "index objectClass,uid,sAMAccountName,userPrincipalName,mail,employeeNumber,member eq",
    // memberOf, computed from the groups' `member` values when an entry is read, as AD computes its
    // back-link: it stays right when a group changes, and needs no memberOf lines in the seed.
    // Operational here (asked for by name, not by "*"), where AD returns it with the user attributes.
    "overlay dynlist",
    "dynlist-attrset groupOfURLs memberURL member+memberOf@groupOfNames",
    "",
  ].join("\n");
}
