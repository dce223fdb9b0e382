import KeyvRedis, { Keyv } from "@keyv/redis";
import { KeyvRecordStore, type AtomicOps, type Durability } from "./keyv-record-store.ts";
import { connectRedis, defaultRedisTimeouts, type RedisClient, type RedisTimeouts } from "./redis-client.ts";
import type { RedisConnection, Replication } from "./redis-url.ts";
import { CORE_RECORD_KINDS, type RecordKind, type RecordStore, type Store } from "./store.ts";
import { RecordKindTable, type RecordKinds } from "./record-kinds.ts";
import {
  createOperationRunner,
  silentStoreLogger,
  type OperationObserver,
  type OperationRunner,
  type StoreLogger,
} from "./store-operation.ts";

export interface RedisStoreOptions {
  /** One server (node-redis URL form; shorthand for `connection: { kind: "server", url }`). */
  url?: string;
  connection?: RedisConnection;
  /** Replicas that must acknowledge a durable write before it is answered; none by default. */
  replication?: Replication;
  logger?: StoreLogger;
  /** Told of every operation (latency, failure): the metrics' hook. */
  observe?: OperationObserver | undefined;
  /** Prefix of every raw key; lets several deployments (or test runs) share one Redis database. */
  keyPrefix?: string;
  timeouts?: Partial<RedisTimeouts>;
}

const CLOSE_WAIT_MS = 2_000;
/** Room past the command timeout for node-redis to give up and report it, so our bound never cuts in first. */
const REPLY_SLACK_MS = 500;
/** The longest one operation takes, with the default timeouts, before it is StoreUnavailableError (a 503): docs/security.md states it. */
export const REDIS_OPERATION_TIMEOUT_MS = operationTimeoutMs(defaultRedisTimeouts);

function operationTimeoutMs(timeouts: RedisTimeouts): number {
  return timeouts.commandTimeoutMs + REPLY_SLACK_MS;
}

/**
 * Adds 1 to a counter kept in Keyv's payload format (so `get` reads it), keeping its TTL; an absent or
 * expired counter starts at 1 with the given TTL. KEYS[1]: raw key; ARGV[1]: now (epoch ms); ARGV[2]: TTL (ms).
 */
const INCREMENT_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if raw then
  local counter = cjson.decode(raw)
  local expires = counter.expires
  if type(expires) ~= 'number' or expires >= tonumber(ARGV[1]) then
    local count = counter.value + 1
    local payload = '{"value":' .. string.format('%d', count)
    if type(expires) == 'number' then payload = payload .. ',"expires":' .. string.format('%d', expires) end
    redis.call('SET', KEYS[1], payload .. '}', 'KEEPTTL')
    return count
  end
end
local expires = tonumber(ARGV[1]) + tonumber(ARGV[2])
redis.call('SET', KEYS[1], '{"value":1,"expires":' .. string.format('%d', expires) .. '}', 'PX', ARGV[2])
return 1
`;

/**
 * Keyv's Redis adapter, except that Keyv's delete-after-reading-an-expired-value does nothing: Redis expires
 * keys itself (every write has a PX TTL), and an unconditional delete there could remove a value that
 * another process `add`ed between Keyv's read and its delete.
 */
class ExpiringRedisAdapter extends KeyvRedis<string> {
  override async delete(): Promise<boolean> {
    return false;
  }
}

/**
 * The Redis backend. Raw keys are `<keyPrefix><kind>:<key>` (default prefix `portcullis:`), holding Keyv's
 * JSON payload `{"value":…,"expires":<epoch ms>}` with a native PX TTL: neither Keyv nor the adapter adds a
 * prefix of its own (Keyv would add `namespace:`, the adapter `namespace::`), so the key that Keyv writes is
 * exactly the key that GETDEL takes. take = GETDEL, add = SET NX PX, increment = a Lua script; counters use
 * the same payload format, so `get` reads them.
 */
export class RedisStore implements Store {
  readonly backend = "redis";
  readonly #client: RedisClient;
  readonly #keyv: Keyv;
  readonly #keyPrefix: string;
  readonly #run: OperationRunner;
  readonly #replication: Replication;
  readonly #namespaces = new Map<RecordKind, RecordStore<unknown>>();
  readonly #kinds = new RecordKindTable(CORE_RECORD_KINDS);
  #closed = false;

  private constructor(client: RedisClient, options: RedisStoreOptions, timeouts: RedisTimeouts) {
    const logger = options.logger ?? silentStoreLogger;
    this.#client = client;
    this.#keyPrefix = options.keyPrefix ?? "portcullis:";
    this.#replication = options.replication ?? { replicas: 0, timeoutMs: 0 };
    // The adapter's own failures come back as rejections (throwOnErrors); its error events are the client's,
    // already logged by connectRedis.
    const adapter = new ExpiringRedisAdapter(client, { throwOnErrors: true, throwOnConnectError: true });
    this.#keyv = new Keyv(adapter, { namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
    // Backstop above the command timeout, for anything that would otherwise wait on a stuck socket.
    this.#run = createOperationRunner({
      backend: "redis",
      logger,
      observe: options.observe,
      timeoutMs: operationTimeoutMs(timeouts),
      isClosed: () => this.#closed,
    });
  }

  /** Connects (waiting for the first attempt only) and returns the store even while Redis is down. */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const timeouts = { ...defaultRedisTimeouts, ...options.timeouts };
    const connection = options.connection ?? { kind: "server", url: options.url ?? "" };
    if (connection.kind === "server" && connection.url === "") throw new Error("RedisStore needs a url or a connection");
    const client = await connectRedis(connection, options.logger ?? silentStoreLogger, timeouts);
    return new RedisStore(client, options, timeouts);
  }

  declare(kinds: RecordKinds): void {
    this.#kinds.add(kinds);
  }

  namespace<T>(kind: RecordKind): RecordStore<T> {
    let namespace = this.#namespaces.get(kind);
    if (namespace === undefined) {
      const prefix = `${this.#keyPrefix}${kind}:`;
      const durable = this.#kinds.traits(kind).durable && this.#replication.replicas > 0;
      namespace = new KeyvRecordStore<unknown>({
        kind,
        keyv: this.#keyv,
        atomic: this.#atomic,
        rawKey: (key) => prefix + key,
        run: this.#run,
        ...(durable && { durability: this.#durability }),
      });
      this.#namespaces.set(kind, namespace);
    }
    return namespace as RecordStore<T>;
  }

  /**
   * WAIT: the writes so far on this connection (node-redis sends every command on one) are on enough
   * replicas, or the operation fails (503) — fail closed, as the caller is about to say "done". A take
   * that fails so is put back (KeyvRecordStore). See docs/decisions.md "Store outages and Redis Sentinel".
   */
  readonly #durability: Durability = {
    confirm: async () => {
      const { replicas, timeoutMs } = this.#replication;
      const acknowledged = await this.#client.wait(replicas, timeoutMs);
      if (acknowledged < replicas)
        throw new Error(`${acknowledged} of ${replicas} replica(s) acknowledged the write within ${timeoutMs} ms`);
    },
    putBack: async (rawKey, payload, ttlMs) => {
      await this.#client.set(
        rawKey,
        payload,
        ttlMs === undefined ? { condition: "NX" } : { condition: "NX", expiration: { type: "PX", value: ttlMs } },
      );
    },
  };

  async ping(): Promise<void> {
    await this.#run("ping", undefined, () => this.#client.ping());
  }

  /** Drops the connection at once: await your operations first. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#client.isOpen) return;
    // A Sentinel client finishes its rediscovery round first, which can wait on a primary that is down:
    // a bounded wait, then the process may go on exiting.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS).unref()));
    await Promise.race([Promise.resolve(this.#client.destroy()).catch(() => {}), bound]);
    clearTimeout(timer);
  }

  readonly #atomic: AtomicOps = {
    take: async (rawKey) => (await this.#client.getDel(rawKey)) ?? undefined,
    add: async (rawKey, payload, ttlMs) =>
      (await this.#client.set(rawKey, payload, { condition: "NX", expiration: { type: "PX", value: ttlMs } })) === "OK",
    increment: async (rawKey, ttlMs, now) =>
      Number(await this.#client.eval(INCREMENT_SCRIPT, { keys: [rawKey], arguments: [String(now), String(ttlMs)] })),
  };
}
