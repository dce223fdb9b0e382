import { execFile, spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "ldapts";
import { findOnPath, freePort, terminate, waitFor } from "../kit/local-processes.ts";
import { SCHEMA_DIR, slapdConf } from "./slapd-conf.ts";

export { SIZE_LIMIT } from "./slapd-conf.ts";

/**
 * A real OpenLDAP server from the machine's own `slapd` (Debian package `slapd`), on loopback in a
 * temporary directory: a generated slapd.conf (slapd-conf.ts), the seed loaded with slapadd before the
 * start, and the server in the foreground as a child of this process, as the current user. The demo
 * directory (`portcullis start --demo-directory`), the bench's LDAP provider and the directory tests run
 * on it.
 */

/** Where slapd is when it is not found: the one line that says what to install. */
export const SLAPD_PACKAGES = "apt-get install slapd ldap-utils";
/**
 * Names the slapd binary, when it is neither on PATH nor in /usr/sbin (a test points it at a missing
 * file to see the start refused).
 */
export const SLAPD_ENV = "PORTCULLIS_SLAPD";

export interface SlapdOptions {
  /** The suffix of the one database; every seeded entry lies under it. */
  baseDn: string;
  /** LDIF texts that slapadd loads before the start, in order: the base entry first. */
  seed: string[];
}

export interface RunningSlapd {
  /** ldap://127.0.0.1:PORT */
  url: string;
  port: number;
  /** slapd's process id (the bench pins it to the server's core). */
  pid: number;
  baseDn: string;
  /** The rootdn: no access rules and no size limit apply to it. */
  adminDn: string;
  adminPassword: string;
  /** SIGTERM, then its directory removed; resolves once slapd has exited. */
  stop(): Promise<void>;
  /** SIGKILL (a crash): resolves once the process is gone, so the port refuses; `stop()` still cleans up. */
  kill(): Promise<void>;
  /** After kill() (or instead of it): the server again, on the same port with the same entries; resolves once the admin can bind. */
  restart(): Promise<void>;
}

const run = promisify(execFile);

/** The slapd binary: `env.PORTCULLIS_SLAPD`, else on PATH, else in /usr/sbin (Debian's place, not on an ordinary user's PATH). */
export function findSlapd(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env[SLAPD_ENV];
  if (named) return existsSync(named) ? named : undefined;
  const sbin = "/usr/sbin/slapd";
  return findOnPath("slapd", env.PATH ?? "") ?? (existsSync(sbin) ? sbin : undefined);
}

/** Whether slapd and the schemas it includes are installed. */
export function slapdInstalled(env: NodeJS.ProcessEnv = process.env): boolean {
  return findSlapd(env) !== undefined && existsSync(join(SCHEMA_DIR, "core.schema"));
}

/** slapd children still running: killed, and their directories removed, if this process exits without stopping them. */
const running = new Map<ChildProcess, string>();
let exitHookInstalled = false;

/**
 * Starts slapd with `options.seed` loaded, and resolves once the admin can bind. Resolves to undefined
 * when slapd is not installed, rejects when it is but does not start.
 */
export async function startSlapd(options: SlapdOptions, env: NodeJS.ProcessEnv = process.env): Promise<RunningSlapd | undefined> {
  const slapd = findSlapd(env);
  if (slapd === undefined || !slapdInstalled(env)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "portcullis-slapd-"));
  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const database = { baseDn: options.baseDn, adminDn: `cn=admin,${options.baseDn}`, adminPassword: "directory-admin-password" };
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
    watchForExit(started, dir);
    exited = new Promise<void>((resolve) => started.once("exit", () => resolve()));
    await waitFor(() => adminBinds(url, database.adminDn, database.adminPassword), started, `slapd on port ${port}`);
  };
  const stop = async () => {
    if (child !== undefined) await terminate(child, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    mkdirSync(join(dir, "data"));
    writeFileSync(config, slapdConf(dir, database));
    writeFileSync(seed, options.seed.join("\n\n"));
    // slapd -T add is slapadd (Debian installs them as one program). -q: fewer checks while writing, so
    // faster; a load that fails still exits non-zero, and its database is thrown away.
    await run(slapd, ["-T", "add", "-q", "-f", config, "-l", seed]);
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
  return {
    url,
    port,
    get pid() {
      return child!.pid!;
    },
    ...database,
    stop,
    kill,
    restart,
  };
}

/** Keeps `child` in the running list until it exits; a process that exits with slapd still running kills it. */
function watchForExit(child: ChildProcess, dir: string): void {
  running.set(child, dir);
  child.once("exit", () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const [orphan, orphanDir] of running) {
      orphan.kill("SIGKILL");
      rmSync(orphanDir, { recursive: true, force: true });
    }
  });
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
