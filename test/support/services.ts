/**
 * Real Redis and PostgreSQL servers for tests, started from the machine's own binaries (Debian packages
 * `redis-server` and `postgresql`) on loopback, in temporary directories. Each starter resolves to
 * undefined when the binaries are not installed, and rejects when they are installed but fail to start.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { findOnPath, freePort, terminate, waitFor } from "../../src/demo/kit/local-processes.ts";

// The same helpers the demo directory starts its slapd with (src/demo/kit/local-processes.ts).
export { findOnPath, freePort, terminate, waitFor };

export interface RunningService {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL, without waiting (a crash); `stop()` still waits for the exit and cleans up. Servers only. */
  kill?(): void;
}

const run = promisify(execFile);

export interface RedisOptions {
  /** Where to listen; a test restarts a server where it was. */
  port?: number;
  /**
   * Persistence on (append-only file, fsync on every write) with its files here, kept across restarts: the
   * caller owns the directory. Without it the server keeps nothing and its temporary directory goes with it.
   */
  persistentDir?: string;
  /** A replica of the Redis on this loopback port. */
  replicaOf?: number;
}

/** Starts `redis-server` on loopback (by default with no persistence). */
export async function startRedis(options: RedisOptions = {}): Promise<RunningService | undefined> {
  const dir = options.persistentDir ?? mkdtempSync(join(tmpdir(), "portcullis-redis-"));
  const port = options.port ?? (await freePort());
  const persistence =
    options.persistentDir === undefined
      ? ["--save", "", "--appendonly", "no"]
      : ["--save", "", "--appendonly", "yes", "--appendfsync", "always"];
  const replica = options.replicaOf === undefined ? [] : ["--replicaof", "127.0.0.1", String(options.replicaOf)];
  return spawnRedis(["--port", String(port), "--bind", "127.0.0.1", ...persistence, ...replica, "--dir", dir], {
    dir,
    port,
    keepDir: options.persistentDir !== undefined,
  });
}

export interface SentinelOptions {
  /** The primary's loopback port; it is monitored under `name` with a quorum of 2. */
  primaryPort: number;
  name: string;
  /** How long the primary must be silent before a sentinel thinks it down. */
  downAfterMs: number;
  failoverTimeoutMs: number;
}

/** Starts a Redis Sentinel (`redis-server CONFIG --sentinel`) from a generated config file it may rewrite. */
export async function startRedisSentinel(options: SentinelOptions): Promise<RunningService | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-sentinel-"));
  const port = await freePort();
  const config = join(dir, "sentinel.conf");
  const { name, primaryPort, downAfterMs, failoverTimeoutMs } = options;
  writeFileSync(
    config,
    [
      `port ${port}`,
      "bind 127.0.0.1",
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
      `sentinel failover-timeout ${name} ${failoverTimeoutMs}`,
      `sentinel parallel-syncs ${name} 1`,
      "",
    ].join("\n"),
  );
  return spawnRedis([config, "--sentinel"], { dir, port, keepDir: false });
}

/** Spawns redis-server with `args` (logging to `dir`/redis.log) and waits until it answers PING. */
async function spawnRedis(args: string[], where: { dir: string; port: number; keepDir: boolean }): Promise<RunningService | undefined> {
  const { dir, port, keepDir } = where;
  const binary = findOnPath("redis-server");
  if (binary === undefined) {
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const log = join(dir, "redis.log");
  const child = spawn(binary, [...args, "--logfile", log], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    await terminate(child, exited);
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => redisAnswers(port), child, `redis-server on port ${port}`);
  } catch (error) {
    const output = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "";
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop, kill: () => child.kill("SIGKILL") };
}

/** A PostgreSQL server that a test can also stop and start again on the same port and data (an outage). */
export interface PostgresService extends RunningService {
  /** `pg_ctl stop -m fast`: connections are cut, the data stays. */
  pause(): Promise<void>;
  /** Starts it again where it was. */
  resume(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL cluster (trust auth, no fsync) and creates database `portcullis`.
 * PostgreSQL refuses to run as root, so as root initdb and pg_ctl run as the `postgres` user.
 */
export async function startPostgres(): Promise<PostgresService | undefined> {
  const bin = findPostgresBin();
  if (bin === undefined) return undefined;
  const root = mkdtempSync(join(tmpdir(), "portcullis-pg-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const pgRun = (command: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { cwd: root })
      : run(join(bin, command), args, { cwd: root });
  let started = false;
  const stop = async () => {
    if (started) await pgRun("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  };
  try {
    if (asRoot) await run("chown", ["-R", "postgres:postgres", root]);
    await pgRun("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
    const port = await freePort();
    const settings = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    started = true;
    const resume = async () => {
      await pgRun("pg_ctl", ["-D", data, "-l", join(root, "postgres.log"), "-o", settings, "-w", "-t", "30", "start"]);
    };
    await resume();
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query("CREATE DATABASE portcullis");
    } finally {
      await admin.end();
    }
    const pause = async () => {
      await pgRun("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
    };
    return { url: `postgres://postgres@127.0.0.1:${port}/portcullis`, port, stop, pause, resume };
  } catch (error) {
    const logFile = join(root, "postgres.log");
    const output = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-2000) : "";
    await stop();
    throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${output}`);
  }
}

/** The newest `/usr/lib/postgresql/<version>/bin` holding initdb and pg_ctl (Debian's layout). */
function findPostgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(base, v, "bin")).find((bin) => existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl")));
}

async function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    socket.setTimeout(500, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => {
      reply += data.toString();
      if (reply.includes("\r\n")) socket.end();
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve(reply.startsWith("+PONG")));
  });
}
