import { spawnSync } from "node:child_process";
import { acmeOrganisation, SERVICE_ACCOUNT } from "../src/demo/directory/acme-directory.ts";
import { acmeDirectoryYaml, acmeLdapConfig, BIND_PASSWORD_ENV } from "../src/demo/directory/acme-directory-config.ts";
import { SLAPD_PACKAGES, startSlapd } from "../src/demo/directory/slapd.ts";
import { requestedAttributes } from "../src/users/ldap/directory-entry.ts";
import { BenchError } from "./bench-error.ts";
import { DEMO_USERS, type DemoUser } from "./demo-accounts.ts";
import type { DirectoryTarget } from "./directory-check.ts";
import type { RunningServer } from "./workers.ts";

/** The bench's LDAP directory: slapd with the demo's people, pinned to the server core. */
export interface BenchDirectory extends RunningServer {
  /** The files that put a provider on it (directory.yaml, and users.yaml listing no one). */
  providerFiles: Record<string, string>;
  /** What the `directory` scenario's checks ask, and of whom. */
  target: DirectoryTarget & { people: Array<Pick<DemoUser, "username" | "password">> };
}

/**
 * The directory the bench's LDAP provider runs on: the demo directory's slapd and people
 * (src/demo/directory/: alice and bob with users.yaml's passwords), pinned to the server core with every
 * thread, as the provider is, so that its work per login counts on the core the login is measured on (a
 * directory on the same host; a remote one would cost the provider's core only the round trip). The
 * provider finds it by its directory.yaml, the service account's password by ${env:} reference.
 */
export async function startBenchDirectory(cpu: number): Promise<BenchDirectory> {
  const slapd = await startSlapd(acmeOrganisation());
  if (slapd === undefined) throw new BenchError(`the LDAP scenarios need slapd (${SLAPD_PACKAGES}); or run with --no-ldap`);
  const pinned = spawnSync("/usr/bin/taskset", ["-a", "-c", "-p", String(cpu), String(slapd.pid)], { encoding: "utf8" });
  if (pinned.status !== 0) {
    await slapd.stop();
    throw new BenchError(`could not pin slapd to core ${cpu}: ${pinned.stderr.trim()}`);
  }
  // The provider's child process inherits it: the reference in directory.yaml resolves there.
  process.env[BIND_PASSWORD_ENV] = SERVICE_ACCOUNT.password;
  const config = acmeLdapConfig(slapd.url);
  return {
    baseUrl: slapd.url,
    pid: slapd.pid,
    stop: () => slapd.stop(),
    providerFiles: { "directory.yaml": acmeDirectoryYaml(slapd.url), "users.yaml": "users: []\n" },
    target: {
      url: slapd.url,
      serviceDn: config.bind_dn,
      servicePassword: config.bind_password,
      base: config.users.base,
      filter: config.users.filter,
      loginAttribute: config.users.login_attribute,
      attributes: requestedAttributes(config),
      people: DEMO_USERS.map(({ username, password }) => ({ username, password })),
    },
  };
}
