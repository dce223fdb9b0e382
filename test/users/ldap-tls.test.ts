import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LdapEmployees } from "../../src/users/ldap/ldap-employees.ts";
import { ldapSettings, type LdapConfig } from "../../src/users/ldap/ldap-settings.ts";
import { probeDirectory } from "../../src/users/ldap/probe-directory.ts";
import { DirectoryUnavailableError } from "../../src/users/directory-unavailable-error.ts";
import { acmeLdapConfig } from "../support/ldap/acme-directory-config.ts";
import { acmeDirectory } from "../support/ldap/acme-directory.ts";
import { slapdAvailable, startSlapd, type RunningSlapd } from "../support/slapd.ts";
import { makeTestCertificates, opensslAvailable, type TestCertificates } from "../support/test-certificates.ts";
import { startTlsFront, type TlsFront } from "../support/tls-front.ts";

/**
 * The directory over TLS: ldaps:// to a TLS front (a certificate of a private CA) before the test slapd.
 * The provider verifies the certificate against `ca_file` and never falls back to anything weaker; a
 * directory that cannot do StartTLS is an error, not a plain-text connection; check-config says which
 * of these failed.
 */
const SUITE = "LDAP over TLS suite";
const available = slapdAvailable(SUITE) && opensslAvailable(SUITE);

describe.skipIf(!available)("the LDAP directory over TLS", () => {
  let slapd: RunningSlapd;
  let certificates: TestCertificates;
  let front: TlsFront;
  const opened: LdapEmployees[] = [];
  const config = (overrides: Partial<LdapConfig>) =>
    acmeLdapConfig(`ldaps://127.0.0.1:${front.port}`, { connect_timeout: "3s", ...overrides });

  beforeAll(async () => {
    [slapd, certificates] = await Promise.all([startSlapd(acmeDirectory()).then((s) => s!), makeTestCertificates()]);
    front = await startTlsFront({ targetPort: slapd.port, key: certificates.key, cert: certificates.cert });
  });
  afterAll(async () => {
    await Promise.all(opened.map((employees) => employees.close()));
    await front?.close();
    await slapd?.stop();
    certificates?.remove();
  });

  it("looks people up and checks passwords over ldaps:// with the CA of ca_file", async () => {
    const employees = new LdapEmployees(ldapSettings(config({ ca_file: certificates.caFile }), "/"), Date.now);
    opened.push(employees);
    const alice = await employees.findByUsername("alice");
    expect(alice?.sub).toBe("E10001");
    expect(await employees.checkPassword(alice, "alice-password")).toBe(true);
    const steps = await probeDirectory(ldapSettings(config({ ca_file: certificates.caFile }), "/"));
    expect(steps.every((step) => step.ok)).toBe(true);
    expect(steps[0]!.line).toBe(
      `connected to ldaps://127.0.0.1:${front.port} (TLS) and bound as cn=portcullis,ou=services,dc=acme,dc=test`,
    );
  });

  it("refuses a certificate no trusted CA signed, and check-config says it is the TLS that failed", async () => {
    const employees = new LdapEmployees(ldapSettings(config({}), "/"), Date.now);
    opened.push(employees);
    await expect(employees.findByUsername("alice")).rejects.toBeInstanceOf(DirectoryUnavailableError);
    const [connect] = await probeDirectory(ldapSettings(config({}), "/"));
    expect(connect!.ok).toBe(false);
    expect(connect!.line).toMatch(
      /^cannot connect to ldaps:\/\/127\.0\.0\.1:\d+ \(TLS\): .*(self-signed|unable to (get|verify)).*certificate/i,
    );
  });

  it("does not fall back to plain text when the directory cannot do StartTLS", async () => {
    const plain = acmeLdapConfig(slapd.url, { start_tls: true, ca_file: certificates.caFile, connect_timeout: "3s" });
    const employees = new LdapEmployees(ldapSettings(plain, "/"), Date.now);
    opened.push(employees);
    await expect(employees.findByUsername("alice")).rejects.toBeInstanceOf(DirectoryUnavailableError);
    const [connect] = await probeDirectory(ldapSettings(plain, "/"));
    expect(connect!.ok).toBe(false);
    expect(connect!.line).toMatch(new RegExp(`^cannot connect to ${slapd.url} \\(StartTLS\\): `));
  });
});
