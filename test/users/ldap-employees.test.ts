import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectoryUnavailableError } from "../../src/users/directory-unavailable-error.ts";
import { LdapEmployees } from "../../src/users/ldap/ldap-employees.ts";
import { ldapSettings, type LdapConfig } from "../../src/users/ldap/ldap-settings.ts";
import { UserDirectory } from "../../src/users/user-directory.ts";
import { probeDirectory } from "../../src/users/ldap/probe-directory.ts";
import { acmeLdapConfig } from "../support/ldap/acme-directory-config.ts";
import { acmeDirectory } from "../support/ldap/acme-directory.ts";
import { slapdAvailable, startSlapd, type RunningSlapd } from "../support/slapd.ts";

/**
 * The LDAP directory (src/users/ldap/) against a real OpenLDAP seeded with Acme's organisation, configured
 * as Active Directory is (sAMAccountName, userPrincipalName, userAccountControl, memberOf): who is found
 * by which name, what claims they carry, who may bind, and what happens when the server goes away.
 */
const available = slapdAvailable("LDAP user directory suite");

describe.skipIf(!available)("the LDAP directory's employees", () => {
  let slapd: RunningSlapd;
  let now = 1_000_000;
  const clock = () => now;
  const opened: LdapEmployees[] = [];
  const open = (overrides: Partial<LdapConfig> = {}) => {
    const employees = new LdapEmployees(ldapSettings(acmeLdapConfig(slapd.url, overrides), "/"), clock);
    opened.push(employees);
    return employees;
  };

  beforeAll(async () => {
    slapd = (await startSlapd(acmeDirectory({ contractors: 1200 })))!;
  });
  afterAll(async () => {
    await Promise.all(opened.map((employees) => employees.close()));
    await slapd?.stop();
  });

  it("maps a person's attributes to every claim of the spec, in the spec's formats, and the role from the groups", async () => {
    const alice = await open().findByUsername("alice");
    expect(alice).toEqual({
      username: "alice",
      sub: "E10001",
      disabled: false,
      hasPassword: true,
      claims: {
        emp_no: "E10001",
        name: "Alice Chen",
        area: "North",
        bg: "Cloud Business Group",
        bu: "Identity Services",
        company: "Acme Ltd.",
        cost_code: "CC-4410",
        birthdate: "1990/04/12",
        class: "A2",
        job_title: "Staff Engineer",
        hiredate: "2015-08-03",
        email: "alice@example.com",
        picture: "https://example.com/people/E10001.png",
        role: expect.arrayContaining(["employee", "engineer"]),
        // The OIDC standard claims the directory supplies: givenName, sn, the login name, the organisation's address.
        given_name: "Alice",
        family_name: "Chen",
        preferred_username: "alice",
        email_verified: true,
        updated_at: expect.any(Number),
      },
    });
    expect(alice!.claims.role).toHaveLength(2);
    // modifyTimestamp, which slapd set when it loaded the entry: seconds since 1970, not milliseconds, and not in the future.
    const updatedAt = alice!.claims.updated_at!;
    expect(Number.isInteger(updatedAt)).toBe(true);
    expect(updatedAt).toBeGreaterThan(Date.UTC(2020, 0, 1) / 1000);
    expect(updatedAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
  });

  it("finds people by the declared login attribute: uid, AD's sAMAccountName or userPrincipalName, case-insensitively", async () => {
    expect((await open().findByUsername("ALICE"))?.sub).toBe("E10001");
    expect((await open({ users: { ...acmeLdapConfig("").users, login_attribute: "sAMAccountName" } }).findByUsername("bob"))?.sub).toBe(
      "E10002",
    );
    const byUpn = open({ users: { ...acmeLdapConfig("").users, login_attribute: "userPrincipalName" } });
    expect((await byUpn.findByUsername("Alice@Acme.Test"))?.sub).toBe("E10001");
    expect(await byUpn.findByUsername("alice")).toBeUndefined();
    expect((await open().findBySub("E10002"))?.username).toBe("bob");
  });

  it("tests AD's ACCOUNTDISABLE bit, not the whole value: carol (514) is disabled, bob (66048) is not", async () => {
    const employees = open();
    expect((await employees.findByUsername("carol"))?.disabled).toBe(true);
    expect((await employees.findByUsername("bob"))?.disabled).toBe(false);
    // Without the rule, the same entry is not disabled: the bit is what decides.
    expect((await open({ disabled: { active_directory: false } }).findByUsername("carol"))?.disabled).toBe(false);
    // A declared group also disables its members (here: everyone in cn=manager).
    expect(
      (await open({ disabled: { active_directory: false, group: "cn=manager, ou=groups, dc=acme, dc=test" } }).findByUsername("bob"))
        ?.disabled,
    ).toBe(true);
    expect(
      (await open({ disabled: { active_directory: false, attribute: { name: "employeeType", values: ["b2"] } } }).findByUsername("carol"))
        ?.disabled,
    ).toBe(true);
  });

  it("checks a password by binding as the person: right, wrong, empty, unknown and disabled", async () => {
    const employees = open();
    const alice = await employees.findByUsername("alice");
    expect(await employees.checkPassword(alice, "alice-password")).toBe(true);
    expect(await employees.checkPassword(alice, "bob-password")).toBe(false);
    // An empty password would be an unauthenticated bind, which succeeds on most servers: never a login.
    expect(await employees.checkPassword(alice, "")).toBe(false);
    expect(await employees.checkPassword(undefined, "alice-password")).toBe(false);
    // The directory itself refuses a disabled account's bind, whatever the provider asks.
    expect(await employees.checkPassword(await employees.findByUsername("carol"), "carol-password")).toBe(false);
  });

  it("escapes what the user types: filter syntax finds nobody, and a name two entries share logs in as nobody", async () => {
    const employees = open();
    for (const typed of ["*", "alice)(uid=*", "a*", "alice\u0000", "(objectClass=*)", "x".repeat(300)])
      expect(await employees.findByUsername(typed)).toBeUndefined();
    // o is "Acme Ltd." for everyone: as a login attribute it names more than one person.
    expect(await open({ users: { ...acmeLdapConfig("").users, login_attribute: "o" } }).findByUsername("Acme Ltd.")).toBeUndefined();
  });

  it("answers from its cache while the directory is down, refuses beyond the TTL, and recovers when it is back", async () => {
    const employees = open({ cache_ttl: "60s", operation_timeout: "2s", connect_timeout: "2s" });
    const users = new UserDirectory(employees);
    expect(await users.isActive("E10001")).toBe(true);
    await slapd.kill();
    try {
      now += 30_000;
      // Within the TTL: the cached entry answers (an SSO session, a refresh, a TOTP login of alice go on).
      expect(await users.isActive("E10001")).toBe(true);
      // Not cached: the directory must be asked, and cannot answer.
      await expect(users.findBySub("E10002")).rejects.toBeInstanceOf(DirectoryUnavailableError);
      // A password always needs the directory.
      await expect(employees.checkPassword(await employees.findBySub("E10001"), "alice-password")).rejects.toBeInstanceOf(
        DirectoryUnavailableError,
      );
      now += 31_000;
      await expect(users.isActive("E10001")).rejects.toBeInstanceOf(DirectoryUnavailableError);
    } finally {
      await slapd.restart();
    }
    expect(await users.isActive("E10002")).toBe(true);
    expect(await employees.checkPassword(await employees.findBySub("E10001"), "alice-password")).toBe(true);
  });

  it("names a service account whose password the directory refuses as the reason it is unavailable", async () => {
    const employees = open({ bind_password: "not-the-password" });
    await expect(employees.findByUsername("alice")).rejects.toThrow(/refused the service account's bind/);
  });

  it("keeps its connections within max_connections however many lookups run at once", async () => {
    const employees = open({ max_connections: 2, cache_ttl: "1s" });
    const subs = Array.from({ length: 40 }, (_, i) => `C${20001 + i}`);
    const found = await Promise.all(subs.map((sub) => employees.findBySub(sub)));
    expect(found.map((employee) => employee?.sub)).toEqual(subs);
  });

  it("counts every person for check-config with paged results, past the server's size limit of 1000", async () => {
    const steps = await probeDirectory(ldapSettings(acmeLdapConfig(slapd.url), "/"), "bob");
    expect(steps.map((step) => step.ok)).toEqual([true, true, true, true]);
    // 4 of organisation.ldif and 1,200 contractors, one search that a single page could not hold.
    expect(steps[2]!.line).toBe("users.filter matches 1204 people who have employeeNumber");
    expect(steps[3]!.line).toContain("sample user bob (uid=bob,ou=people,dc=acme,dc=test, sub E10002) carries every mapped claim; roles: ");
  });
});
