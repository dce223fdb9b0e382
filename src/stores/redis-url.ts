import { takeKeyPrefix } from "./key-prefix.ts";
import { redactUrl } from "./redact-url.ts";
import { StoreUrlError } from "./store-url-error.ts";

/** Where the Redis store connects: one server by URL, or the primary that Sentinel names. */
export type RedisConnection =
  | { kind: "server"; url: string }
  | { kind: "sentinel"; primaryName: string; sentinels: Array<{ host: string; port: number }>; username?: string; password?: string };

/**
 * Durable writes (refresh tokens, keys, enrollments: the `durable` record kinds) are answered only once
 * `replicas` replicas have them (Redis WAIT), so that a failover to a replica loses none of them.
 * 0 = no waiting (a single Redis).
 */
export interface Replication {
  replicas: number;
  timeoutMs: number;
}

export interface RedisTarget {
  connection: RedisConnection;
  replication: Replication;
  keyPrefix?: string;
}

const SENTINEL_PORT = 26379;
const OUR_PARAMS = ["prefix", "wait", "wait_timeout_ms"];
/** Below the command timeout (redis-client.ts), so that WAIT's own answer, not the timeout, decides. */
const MAX_WAIT_TIMEOUT_MS = 1000;
const DEFAULT_WAIT_TIMEOUT_MS = 500;

/**
 * A Redis store URL:
 * - `redis://…` / `rediss://…`: one server (node-redis's URL), default `wait=0`;
 * - `redis+sentinel://[USER:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]/PRIMARY_NAME`: the primary that the
 *   sentinels (port 26379 by default) name, followed across failovers; default `wait=1`. USER and
 *   PASSWORD are the data nodes' (the sentinels are asked without).
 * Query parameters of ours, removed before the driver sees the URL: `prefix=NAME` (key prefix),
 * `wait=N` (replicas that must acknowledge a durable write), `wait_timeout_ms=MS` (default 500, at most 1000).
 */
export function parseRedisUrl(url: string): RedisTarget {
  return url.toLowerCase().startsWith("redis+sentinel:") ? parseSentinelUrl(url) : parseServerUrl(url);
}

function parseServerUrl(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUrlError(`store URL "${redactUrl(url)}" is not a valid URL`);
  }
  const ours = OUR_PARAMS.some((name) => parsed.searchParams.has(name));
  const keyPrefix = takeKeyPrefix(parsed.searchParams);
  const replication = takeReplication(parsed.searchParams, 0);
  return {
    connection: { kind: "server", url: ours ? parsed.toString() : url },
    replication,
    ...(keyPrefix !== undefined && { keyPrefix }),
  };
}

function parseSentinelUrl(url: string): RedisTarget {
  const match = /^redis\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)\/([^/?#]+)\/?(?:\?([^#]*))?$/i.exec(url);
  if (!match) {
    throw new StoreUrlError(
      `store URL "${redactUrl(url)}" is not a Sentinel URL: write redis+sentinel://HOST:PORT[,HOST:PORT…]/PRIMARY_NAME`,
    );
  }
  const [, user, password, hosts, name, query] = match;
  const params = new URLSearchParams(query ?? "");
  const keyPrefix = takeKeyPrefix(params);
  const replication = takeReplication(params, 1);
  const unknown = [...params.keys()];
  if (unknown.length > 0)
    throw new StoreUrlError(
      `store URL "${redactUrl(url)}": unknown parameter "${unknown[0]}" (a Sentinel URL takes prefix, wait and wait_timeout_ms)`,
    );
  const connection: RedisConnection = {
    kind: "sentinel",
    primaryName: decodeURIComponent(name!),
    sentinels: hosts!.split(",").map((host) => sentinelNode(host, url)),
    ...(user && { username: decodeURIComponent(user) }),
    ...(password !== undefined && { password: decodeURIComponent(password) }),
  };
  return { connection, replication, ...(keyPrefix !== undefined && { keyPrefix }) };
}

function sentinelNode(text: string, url: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-f:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/i.exec(text);
  const port = match?.[3] === undefined ? SENTINEL_PORT : Number(match[3]);
  if (!match || port < 1 || port > 65535) throw new StoreUrlError(`store URL "${redactUrl(url)}": "${text}" is not a sentinel HOST[:PORT]`);
  return { host: match[1] ?? match[2]!, port };
}

function takeReplication(params: URLSearchParams, defaultReplicas: number): Replication {
  const replicas = takeInteger(params, "wait", defaultReplicas, 0, 16);
  const timeoutMs = takeInteger(params, "wait_timeout_ms", DEFAULT_WAIT_TIMEOUT_MS, 1, MAX_WAIT_TIMEOUT_MS);
  return { replicas, timeoutMs };
}

function takeInteger(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const text = params.get(name);
  params.delete(name);
  if (text === null) return fallback;
  if (!/^\d{1,6}$/.test(text) || Number(text) < min || Number(text) > max)
    throw new StoreUrlError(`store URL parameter ${name}=${text} must be a whole number from ${min} to ${max}`);
  return Number(text);
}
