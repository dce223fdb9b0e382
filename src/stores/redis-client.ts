import { createClient } from "@keyv/redis";
import { describeError, type StoreLogger } from "./store-operation.ts";

export type RedisClient = ReturnType<typeof createFailFastClient>;

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
export async function connectRedis(url: string, logger: StoreLogger, timeouts: RedisTimeouts): Promise<RedisClient> {
  const client = createFailFastClient(url, timeouts);
  let healthy = true;
  client.on("error", (error: unknown) => {
    if (!healthy) return;
    healthy = false;
    logger.error({ backend: "redis", error: describeError(error) }, "redis store unreachable; reconnecting");
  });
  client.on("ready", () => {
    if (healthy) return;
    healthy = true;
    logger.info({ backend: "redis" }, "redis store reachable again");
  });
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
  });
  // connect() settles only once connected (or never, while Redis stays down); errors reach the listener.
  client.connect().catch(() => {});
  await firstAttempt;
  return client;
}

function createFailFastClient(url: string, timeouts: RedisTimeouts) {
  return createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: timeouts.commandTimeoutMs },
    socket: {
      connectTimeout: timeouts.connectTimeoutMs,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, timeouts.maxReconnectDelayMs),
    },
  });
}
