import { createClient, createSentinel } from "@keyv/redis";
import type { RedisConnection } from "./redis-url.ts";
import { describeError, type StoreLogger } from "./store-operation.ts";

/** One Redis server, or the primary Sentinel names (node-redis's RedisSentinel: same commands, followed across failovers). */
export type RedisClient = ReturnType<typeof createFailFastClient> | ReturnType<typeof createFailFastSentinel>;

/** Timing that makes a down or stuck Redis fail a request in about a second instead of hanging it. */
export interface RedisTimeouts {
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Longest wait between reconnection attempts. */
  maxReconnectDelayMs: number;
}

export const defaultRedisTimeouts: RedisTimeouts = { connectTimeoutMs: 1000, commandTimeoutMs: 1500, maxReconnectDelayMs: 2000 };

/**
 * A node-redis client that fails fast while Redis is unreachable and keeps reconnecting in the background.
 * node-redis queues commands while disconnected by default (a request would wait for as long as Redis is
 * down): `disableOfflineQueue` rejects them at once instead, and every command has a timeout.
 * Connection errors are logged once per outage, not once per retry; without an error listener node-redis
 * would crash the process.
 */
export async function connectRedis(connection: RedisConnection, logger: StoreLogger, timeouts: RedisTimeouts): Promise<RedisClient> {
  let healthy = true;
  const unhealthy = (error: unknown) => {
    if (!healthy) return;
    healthy = false;
    logger.error({ backend: "redis", error: describeError(error) }, "redis store unreachable; reconnecting");
  };
  const reachable = () => {
    if (healthy) return;
    healthy = true;
    logger.info({ backend: "redis" }, "redis store reachable again");
  };
  const client =
    connection.kind === "sentinel" ? createFailFastSentinel(connection, timeouts) : createFailFastClient(connection.url, timeouts);
  client.on("error", unhealthy);
  client.on("ready", reachable);
  if (connection.kind === "sentinel") followSentinel(client as ReturnType<typeof createFailFastSentinel>, logger, unhealthy, reachable);
  // Wait for the first attempt only: a provider that starts while Redis is down still starts, answers 503
  // for what needs the store, and recovers when Redis is back.
  const firstAttempt = new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      client.off("error", done);
      resolve();
    };
    const timer = setTimeout(done, timeouts.connectTimeoutMs + 100);
    client.on("ready", done);
    client.on("error", done);
    // connect() settles only once connected (or never, while Redis stays down); errors reach the listener.
    // A Sentinel client emits no "ready" of its own: its connect() resolving is the sign.
    client.connect().then(done, () => {});
  });
  await firstAttempt;
  return client;
}

function createFailFastClient(url: string, timeouts: RedisTimeouts) {
  return createClient({ url, ...failFastOptions(timeouts) });
}

function failFastOptions(timeouts: RedisTimeouts) {
  return {
    disableOfflineQueue: true,
    commandOptions: { timeout: timeouts.commandTimeoutMs },
    socket: {
      connectTimeout: timeouts.connectTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, timeouts.maxReconnectDelayMs),
    },
  };
}

/**
 * node-redis's Sentinel client: asks the sentinels for the primary, connects to it, and on a failover
 * (their `switch-master`, or a command finding the primary gone or read-only) asks again and moves to
 * the new one. While no primary is known its commands wait for one: the store's operation timeout turns
 * that into a 503. Rediscovery is never given up (node-redis would stop after `maxCommandRediscovers`
 * failed rounds at start-up and stay disconnected until a restart).
 */
function createFailFastSentinel(connection: Extract<RedisConnection, { kind: "sentinel" }>, timeouts: RedisTimeouts) {
  const { commandOptions, ...nodeOptions } = failFastOptions(timeouts);
  const credentials = {
    ...(connection.username !== undefined && { username: connection.username }),
    ...(connection.password !== undefined && { password: connection.password }),
  };
  return createSentinel({
    name: connection.primaryName,
    sentinelRootNodes: connection.sentinels,
    nodeClientOptions: { ...nodeOptions, ...credentials },
    sentinelClientOptions: { socket: { connectTimeout: timeouts.connectTimeoutMs } },
    commandOptions,
    maxCommandRediscovers: Number.MAX_SAFE_INTEGER,
  });
}

/** Logs where the primary is (at start and after each failover) and the primary's connection errors. */
function followSentinel(
  sentinel: ReturnType<typeof createFailFastSentinel>,
  logger: StoreLogger,
  unhealthy: (error: unknown) => void,
  reachable: () => void,
): void {
  sentinel.on("topology-change", (event: { type: string; node?: { host: string; port: number } }) => {
    if (event.type !== "MASTER_CHANGE" || event.node === undefined) return;
    logger.info({ backend: "redis", primary: `${event.node.host}:${event.node.port}` }, "redis primary (from sentinel)");
    reachable();
  });
  sentinel.on("client-error", (event: { type: string; error: unknown }) => {
    if (event.type === "MASTER") unhealthy(event.error);
  });
}
