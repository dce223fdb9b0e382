import { InvalidCredentialsError, NoSuchObjectError, ResultCodeError, escapeFilter } from "ldapts";
import { employeeOf, requestedAttributes, type UnmappedClaim } from "./directory-entry.ts";
import type { LdapSettings } from "./ldap-settings.ts";
import { isLdaps, newLdapClient } from "./ldap-client.ts";

/** One step of the probe: what it found, or what failed and why. */
export interface ProbeStep {
  ok: boolean;
  line: string;
}

/** Page size of the count of people: below AD's and slapd's default size limit of 1000. */
const PAGE_SIZE = 500;

/**
 * What `portcullis check-config` asks an LDAP directory, step by step, stopping at the first that fails
 * so the operator reads exactly what is wrong: the connection (TLS included), the service account's
 * bind, the search base, the filter (with a paged count of the people it matches, so a directory of
 * any size is counted whole), and one person's entry against the claims mapping. `sampleUser` names the
 * person (a login name); without it the first person found.
 */
export async function probeDirectory(settings: LdapSettings, sampleUser?: string): Promise<ProbeStep[]> {
  const { config } = settings;
  const steps: ProbeStep[] = [];
  const client = newLdapClient(settings);
  const step = async (failure: string, run: () => Promise<string>): Promise<boolean> => {
    try {
      steps.push({ ok: true, line: await run() });
      return true;
    } catch (error) {
      steps.push({ ok: false, line: `${failure}: ${describe(error)}` });
      return false;
    }
  };
  const transport = isLdaps(settings.url) ? "TLS" : settings.startTls ? "StartTLS" : "no TLS";
  try {
    const connected = await step(`cannot connect to ${settings.url} (${transport})`, async () => {
      if (settings.startTls) await client.startTLS(settings.tls);
      // A bind is the first operation that needs the connection: the connect (and TLS) happen here.
      await client.bind(config.bind_dn, config.bind_password);
      return `connected to ${settings.url} (${transport}) and bound as ${config.bind_dn}`;
    });
    if (!connected) return steps;
    const baseFound = await step(`users.base ${config.users.base}`, async () => {
      await client.search(config.users.base, { scope: "base", attributes: ["1.1"] });
      return `users.base ${config.users.base} exists`;
    });
    if (!baseFound) return steps;
    const people = `(&${config.users.filter}(${config.users.sub_attribute}=*))`;
    const counted = await step(`users.filter ${config.users.filter}`, async () => {
      const { searchEntries } = await client.search(config.users.base, {
        filter: people,
        attributes: ["1.1"],
        paged: { pageSize: PAGE_SIZE },
      });
      if (searchEntries.length === 0) throw new Error(`matches no one with a ${config.users.sub_attribute} under ${config.users.base}`);
      return `users.filter matches ${searchEntries.length} ${searchEntries.length === 1 ? "person who has" : "people who have"} ${config.users.sub_attribute}`;
    });
    if (!counted) return steps;
    await step("sample user", async () => {
      const filter =
        sampleUser === undefined ? people : `(&${config.users.filter}${escapeFilter`(${config.users.login_attribute}=${sampleUser})`})`;
      const { searchEntries } = await client.search(config.users.base, { filter, attributes: requestedAttributes(config), sizeLimit: 1 });
      const entry = searchEntries[0];
      if (entry === undefined) throw new Error(`no ${config.users.login_attribute}=${sampleUser} under ${config.users.base}`);
      const unmapped: UnmappedClaim[] = [];
      const found = employeeOf(entry, config, unmapped);
      if (found === undefined)
        throw new Error(
          `${entry.dn} has no ${config.users.login_attribute}, or no ${config.users.sub_attribute} of the employee-number form`,
        );
      if (unmapped.length > 0) throw new Error(`${entry.dn}: ${unmapped.map(describeUnmapped).join("; ")}`);
      const roles = (found.employee.claims.role ?? []).join(", ") || "none";
      return `sample user ${found.employee.username} (${entry.dn}, sub ${found.employee.sub}) carries every mapped claim; roles: ${roles}`;
    });
    return steps;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

function describeUnmapped({ claim, attribute, problem }: UnmappedClaim): string {
  return problem === "missing"
    ? `claim ${claim}: attribute ${attribute} is missing`
    : `claim ${claim}: ${attribute} is not in its declared format`;
}

function describe(error: unknown): string {
  if (error instanceof InvalidCredentialsError)
    return "the directory refused the bind (invalid credentials: check bind_dn and bind_password)";
  if (error instanceof NoSuchObjectError) return "no such entry in the directory";
  if (error instanceof ResultCodeError) return `the directory answered ${error.name} (${error.code}): ${error.message}`;
  const { message, code } = error as Error & { code?: string };
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}
