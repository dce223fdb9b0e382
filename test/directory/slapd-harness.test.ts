import { Client, InvalidCredentialsError, ResultCodeError, SizeLimitExceededError, type Entry } from "ldapts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ACME_BASE_DN, PEOPLE_DN, SERVICE_ACCOUNT, acmeDirectory, groupDn, personDn } from "../support/ldap/acme-directory.ts";
import { SIZE_LIMIT, slapdAvailable, startSlapd, type RunningSlapd } from "../support/slapd.ts";

/**
 * The test directory the user-store work (issue 27) will run against: a real slapd seeded with Acme's
 * organisation, answering as Active Directory does where a user store can tell. These tests prove the
 * harness, not the product: that the people, their passwords, their groups, AD's account attributes and
 * a group too large for one search are there, and that a dead server fails a client fast.
 */
const available = slapdAvailable("LDAP directory suite");
const CONTRACTORS = 1200;

/** Clients with both of ldapts' timeouts, so a server that never answers fails the test instead of hanging it. */
function clientsOf(): { connect(url: string): Client; closeAll(): Promise<void> } {
  const open: Client[] = [];
  return {
    connect(url) {
      const client = new Client({ url, connectTimeout: 5_000, timeout: 10_000 });
      open.push(client);
      return client;
    },
    async closeAll() {
      await Promise.all(open.splice(0).map((client) => client.unbind().catch(() => {})));
    },
  };
}

const values = (entry: Entry | undefined, attribute: string): string[] => {
  const value = entry?.[attribute];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String).sort();
};

describe.skipIf(!available)("the test directory: Debian's slapd seeded with Acme's organisation", () => {
  let directory: RunningSlapd;
  const clients = clientsOf();

  beforeAll(async () => {
    directory = (await startSlapd(acmeDirectory({ contractors: CONTRACTORS })))!;
  });
  afterEach(() => clients.closeAll());
  afterAll(async () => {
    await directory?.stop();
  });

  const asService = async () => {
    const client = clients.connect(directory.url);
    await client.bind(SERVICE_ACCOUNT.dn, SERVICE_ACCOUNT.password);
    return client;
  };
  const dns = async (client: Client, filter: string, base = ACME_BASE_DN) =>
    (await client.search(base, { filter, attributes: ["1.1"] })).searchEntries.map((entry) => entry.dn).sort();

  it("lets the admin bind and finds a person by uid, with the attributes the userinfo claims come from", async () => {
    const admin = clients.connect(directory.url);
    await admin.bind(directory.adminDn, directory.adminPassword);
    const { searchEntries } = await admin.search(PEOPLE_DN, { filter: "(uid=alice)" });
    expect(searchEntries).toHaveLength(1);
    expect(searchEntries[0]).toMatchObject({
      dn: personDn("alice"),
      employeeNumber: "E10001",
      cn: "Alice Chen",
      o: "Acme Ltd.",
      ou: "Identity Services",
      departmentNumber: "CC-4410",
      title: "Staff Engineer",
      mail: "alice@example.com",
    });
  });

  it("finds people by AD's logon names, case-insensitively, with AD's class name in the filter", async () => {
    const service = await asService();
    expect(await dns(service, "(&(objectClass=user)(sAMAccountName=ALICE))")).toEqual([personDn("alice")]);
    expect(await dns(service, "(&(objectClass=user)(userPrincipalName=bob@acme.test))")).toEqual([personDn("bob")]);
  });

  it("binds a person with the right password and refuses a wrong one as invalid credentials", async () => {
    await clients.connect(directory.url).bind(personDn("alice"), "alice-password");
    await expect(clients.connect(directory.url).bind(personDn("alice"), "bob-password")).rejects.toBeInstanceOf(InvalidCredentialsError);
  });

  it("refuses the disabled account even its right password, and AD's bit filter tells it from the enabled ones", async () => {
    await expect(clients.connect(directory.url).bind(personDn("carol"), "carol-password")).rejects.toBeInstanceOf(InvalidCredentialsError);
    const service = await asService();
    const disabled = "(userAccountControl:1.2.840.113556.1.4.803:=2)";
    expect(await dns(service, `(&(objectClass=user)${disabled})`)).toEqual([personDn("carol")]);
    // bob's flags are 66048, not 512: only the bit test, not equality, finds him enabled.
    expect(await dns(service, `(&(objectClass=user)(!${disabled})(|(uid=alice)(uid=bob)(uid=carol)))`)).toEqual(
      [personDn("alice"), personDn("bob")].sort(),
    );
  });

  it("answers a person's groups as memberOf when asked for it by name, and a group's people as member", async () => {
    const service = await asService();
    const [alice] = (await service.search(personDn("alice"), { scope: "base", attributes: ["*", "memberOf"] })).searchEntries;
    expect(values(alice, "memberOf")).toEqual([groupDn("employee"), groupDn("engineer")].sort());
    // Operational in slapd: "*" alone leaves it out (AD would return it).
    const [plain] = (await service.search(personDn("alice"), { scope: "base" })).searchEntries;
    expect(values(plain, "memberOf")).toEqual([]);
    expect(await dns(service, `(member=${personDn("bob")})`)).toEqual([groupDn("employee"), groupDn("manager")].sort());
    expect(await dns(service, `(memberOf=${groupDn("manager")})`)).toEqual([personDn("bob")]);
  });

  it("caps a plain search at AD's MaxPageSize, and reads a larger group whole page by page", async () => {
    expect(CONTRACTORS).toBeGreaterThan(SIZE_LIMIT);
    const service = await asService();
    const filter = `(memberOf=${groupDn("contractors")})`;
    await expect(service.search(PEOPLE_DN, { filter, attributes: ["1.1"] })).rejects.toBeInstanceOf(SizeLimitExceededError);
    const pages: string[][] = [];
    for await (const page of service.searchPaginated(PEOPLE_DN, { filter, attributes: ["1.1"], paged: { pageSize: 500 } })) {
      pages.push(page.searchEntries.map((entry) => entry.dn));
    }
    expect(pages.length).toBeGreaterThan(1);
    expect(Math.max(...pages.map((page) => page.length))).toBeLessThanOrEqual(500);
    expect(new Set(pages.flat()).size).toBe(CONTRACTORS);
  });
});

describe.skipIf(!available)("a test directory that crashes", () => {
  let directory: RunningSlapd | undefined;
  const clients = clientsOf();
  afterAll(async () => {
    await clients.closeAll();
    await directory?.stop();
  });

  it("fails a bind with a connection error, not a hang, for a bound client and a new one", async () => {
    directory = (await startSlapd(acmeDirectory()))!;
    const bound = clients.connect(directory.url);
    await bound.bind(SERVICE_ACCOUNT.dn, SERVICE_ACCOUNT.password);
    await directory.kill();
    const before = await bound.bind(SERVICE_ACCOUNT.dn, SERVICE_ACCOUNT.password).catch((error: unknown) => error);
    const fresh = await clients
      .connect(directory.url)
      .bind(SERVICE_ACCOUNT.dn, SERVICE_ACCOUNT.password)
      .catch((error: unknown) => error);
    for (const error of [before, fresh]) {
      expect(error).toBeInstanceOf(Error);
      // Not an answer from a server, and not one of the clients' own timeouts.
      expect(error).not.toBeInstanceOf(ResultCodeError);
      expect((error as Error).message).not.toMatch(/timed? ?out/i);
    }
    expect(fresh).toMatchObject({ code: "ECONNREFUSED" });
  });
});
