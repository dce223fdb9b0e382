/**
 * A real OpenLDAP server for tests, from the machine's own `slapd` (Debian package `slapd`), on loopback
 * in a temporary directory: a generated slapd.conf, the seed loaded with `slapadd` before the start, and
 * the server in the foreground as the current user. It writes nothing outside its directory (no pid file
 * under /var/run, no ldapi socket, no dropping of privileges), so it neither needs nor disturbs a system
 * slapd. Resolves to undefined when slapd is not installed, rejects when it is but does not start.
 * A suite asks `slapdAvailable` first, which skips it loudly (or fails it under CI).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "ldapts";
import { unavailable } from "./require-service.ts";
import { findOnPath, freePort, terminate, waitFor, type RunningService } from "./services.ts";

/** Debian's layout: the schemas shipped with slapd, and its backends and overlays built as modules. */
const SCHEMA_DIR = "/etc/ldap/schema";
const MODULE_DIR = "/usr/lib/ldap";
const AD_COMPAT_SCHEMA = fileURLToPath(new URL("./ldap/ad-compat.schema", import.meta.url));

/**
 * The most entries one search answers without paging, to anyone but the admin: Active Directory's
 * default MaxPageSize. A paged search is not capped, as in AD, so only paging reads a larger group whole.
 */
export const SIZE_LIMIT = 1000;

export interface SlapdOptions {
  /** The suffix of the one database; every seeded entry lies under it. */
  baseDn: string;
  /** LDIF texts that slapadd loads before the start, in order: the base entry first. */
  seed: string[];
}

export interface RunningSlapd extends RunningService {
  baseDn: string;
  /** The rootdn: no access rules and no size limit apply to it. */
  adminDn: string;
  adminPassword: string;
  /** SIGKILL (a crash): resolves once the process is gone, so the port refuses; `stop()` still cleans up. */
  kill(): Promise<void>;
  /** After kill() (or instead of it): the server again, on the same port with the same entries; resolves once the admin can bind. */
  restart(): Promise<void>;
}

const run = promisify(execFile);

/** True when slapd can be started here; otherwise says so in one loud line (and throws under CI). */
export function slapdAvailable(suite: string): boolean {
  if (installed()) return true;
  return unavailable(suite, "slapd not installed (apt-get install slapd)");
}

/** Starts slapd with `options.seed` loaded, and waits until the admin can bind. */
export async function startSlapd(options: SlapdOptions): Promise<RunningSlapd | undefined> {
  const slapd = tool("slapd");
  const slapadd = tool("slapadd");
  if (slapd === undefined || slapadd === undefined || !installed()) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "portcullis-slapd-"));
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const server = { baseDn: options.baseDn, adminDn: `cn=admin,${options.baseDn}`, adminPassword: "directory-admin-password" };
  const config = join(dir, "slapd.conf");
  const seed = join(dir, "seed.ldif");
  const log = join(dir, "slapd.log");
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  // -d keeps slapd in the foreground, our child; at level "none" it prints only its start, its stop and its errors.
  const launch = async () => {
    const logFd = openSync(log, "a");
    try {
      child = spawn(slapd, ["-h", `${url}/`, "-f", config, "-d", "none"], { stdio: ["ignore", "ignore", logFd] });
    } finally {
      closeSync(logFd);
    }
    const started = child;
    exited = new Promise<void>((resolve) => started.once("exit", () => resolve()));
    await waitFor(() => adminBinds(url, server.adminDn, server.adminPassword), started, `slapd on port ${port}`);
  };
  const stop = async () => {
    if (child !== undefined) await terminate(child, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    mkdirSync(join(dir, "data"));
    writeFileSync(config, slapdConf(dir, server));
    writeFileSync(seed, options.seed.join("\n\n"));
    // -q: fewer checks while writing, so faster; a load that fails still exits non-zero, and its database is thrown away.
    await run(slapadd, ["-q", "-f", config, "-l", seed]);
    await launch();
  } catch (error) {
    const output = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "";
    await stop();
    // A failed slapadd's message carries its stderr; a failed start's cause is in slapd's log.
    throw new Error(`slapd did not start: ${(error as Error).message}\n${output}`);
  }
  const kill = async () => {
    child?.kill("SIGKILL");
    await exited;
  };
  // The same server on the same port and data, as after an outage: clients must find it again by themselves.
  const restart = async () => {
    await kill();
    await launch();
  };
  return { url, port, ...server, stop, kill, restart };
}

/** The configuration of one server in `dir`, everything it writes under `dir`. */
function slapdConf(dir: string, server: { baseDn: string; adminDn: string; adminPassword: string }): string {
  return [
    ...["core", "cosine", "inetorgperson", "nis", "dyngroup"].map((name) => `include ${SCHEMA_DIR}/${name}.schema`),
    `include ${AD_COMPAT_SCHEMA}`,
    `pidfile ${join(dir, "slapd.pid")}`,
    `argsfile ${join(dir, "slapd.args")}`,
    // Nothing to syslog: a developer's journal is no place for a test run's connections.
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
    `suffix "${server.baseDn}"`,
    `rootdn "${server.adminDn}"`,
    `rootpw ${server.adminPassword}`,
    `directory ${join(dir, "data")}`,
    // The map's upper bound, not an allocation; a test directory never comes near it.
    "maxsize 268435456",
    // A throwaway database: no fsync per write.
    "dbnosync",
    "index objectClass,uid,sAMAccountName,userPrincipalName,mail,employeeNumber,member eq",
    // memberOf, computed from the groups' `member` values when an entry is read, as AD computes its
    // back-link: it stays right when a test changes a group, and needs no memberOf lines in the seed.
    // Operational here (asked for by name, not by "*"), where AD returns it with the user attributes.
    "overlay dynlist",
    "dynlist-attrset groupOfURLs memberURL member+memberOf@groupOfNames",
    "",
  ].join("\n");
}

/** Debian installs slapd's tools in /usr/sbin, which is not on an ordinary user's PATH. */
function tool(name: "slapd" | "slapadd"): string | undefined {
  const sbin = join("/usr/sbin", name);
  return findOnPath(name) ?? (existsSync(sbin) ? sbin : undefined);
}

function installed(): boolean {
  return tool("slapd") !== undefined && tool("slapadd") !== undefined && existsSync(join(SCHEMA_DIR, "core.schema"));
}

async function adminBinds(url: string, dn: string, password: string): Promise<boolean> {
  const client = new Client({ url, connectTimeout: 1000, timeout: 1000 });
  try {
    await client.bind(dn, password);
    return true;
  } catch {
    return false;
  } finally {
    await client.unbind().catch(() => {});
  }
}
