import { Keyv } from "keyv";
import pg from "pg";
import { KeyvRecordStore, type AtomicOps } from "./keyv-record-store.ts";
import { KEYV_TABLE, KEYV_TABLE_DDL, MAX_KEY_LENGTH, OwnedPoolPostgresAdapter, type Query } from "./postgres-adapter.ts";
import { CORE_RECORD_KINDS, type RecordKind, type RecordStore, type Store } from "./store.ts";
import { RecordKindTable, type RecordKinds } from "./record-kinds.ts";
import {
  createOperationRunner,
  describeError,
  silentStoreLogger,
  type OperationObserver,
  type OperationRunner,
  type StoreLogger,
} from "./store-operation.ts";

export interface PostgresStoreOptions {
  url: string;
  logger?: StoreLogger;
  /** Told of every operation (latency, failure): the metrics' hook. */
  observe?: OperationObserver | undefined;
  /** Prefix of every key; lets several deployments (or test runs) share one table. */
  keyPrefix?: string;
  /** How often expired rows are deleted. Default 60 s. */
  sweepIntervalMs?: number;
  /** Connecting (or waiting for a pooled connection) fails after this long. Default 1 s. */
  connectionTimeoutMs?: number;
  /** A statement fails after this long. Default 1.5 s. */
  queryTimeoutMs?: number;
  poolSize?: number;
}

const DEFAULT_CONNECTION_TIMEOUT_MS = 1000;
const DEFAULT_QUERY_TIMEOUT_MS = 1500;
/** The longest one operation takes, with the default timeouts (a connection, then the statement), before it is StoreUnavailableError (a 503): docs/security.md states it. */
export const POSTGRES_OPERATION_TIMEOUT_MS = DEFAULT_CONNECTION_TIMEOUT_MS + DEFAULT_QUERY_TIMEOUT_MS;

// A payload's `expires` (epoch ms) as a number; NULL when the value never expires, so never "expired".
const EXPIRES = `(t.value::json->>'expires')::numeric`;

/**
 * The PostgreSQL backend: Keyv's table `keyv` (key, value TEXT holding Keyv's JSON payload
 * `{"value":…,"expires":<epoch ms>}`), keys `<keyPrefix><kind>:<key>` (default prefix `portcullis:`, at most
 * 255 characters in all). PostgreSQL has no TTL: expired rows are ignored on read (Keyv checks `expires`;
 * the statements below treat them as absent) and deleted by a periodic sweep. Each operation is one
 * statement, atomic across processes: take = DELETE … RETURNING, add and increment = INSERT … ON CONFLICT
 * DO UPDATE … WHERE/CASE expired. Counters use the payload format too, so `get` reads them.
 */
export class PostgresStore implements Store {
  readonly backend = "postgres";
  readonly #pool: pg.Pool;
  readonly #keyv: Keyv;
  readonly #keyPrefix: string;
  readonly #logger: StoreLogger;
  readonly #run: OperationRunner;
  readonly #namespaces = new Map<RecordKind, RecordStore<unknown>>();
  /** PostgreSQL keeps every kind alike (durable); the table only refuses kinds nobody declared. */
  readonly #kinds = new RecordKindTable(CORE_RECORD_KINDS);
  readonly #sweeper: NodeJS.Timeout;
  #tableReady: Promise<void> | undefined;
  #closed = false;

  constructor(options: PostgresStoreOptions) {
    this.#logger = options.logger ?? silentStoreLogger;
    this.#keyPrefix = options.keyPrefix ?? "portcullis:";
    const connectionTimeoutMillis = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
    const queryTimeout = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.#pool = new pg.Pool({
      connectionString: options.url,
      connectionTimeoutMillis,
      query_timeout: queryTimeout,
      max: options.poolSize ?? 10,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    });
    // An idle connection that dies (server restart) is reported here; unheard, it would crash the process.
    this.#pool.on("error", (error) =>
      this.#logger.warn({ backend: "postgres", error: describeError(error) }, "postgres store lost an idle connection"),
    );
    const adapter = new OwnedPoolPostgresAdapter(this.#query);
    // The adapter's only error events come from its own CREATE TABLE at construction; #query retries that anyway.
    adapter.on("error", () => {});
    this.#keyv = new Keyv(adapter, { namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
    this.#run = createOperationRunner({
      backend: "postgres",
      logger: this.#logger,
      observe: options.observe,
      timeoutMs: connectionTimeoutMillis + queryTimeout,
      isClosed: () => this.#closed,
    });
    this.#sweeper = setInterval(() => void this.sweep(), options.sweepIntervalMs ?? 60_000).unref();
  }

  declare(kinds: RecordKinds): void {
    this.#kinds.add(kinds);
  }

  namespace<T>(kind: RecordKind): RecordStore<T> {
    let namespace = this.#namespaces.get(kind);
    if (namespace === undefined) {
      this.#kinds.traits(kind);
      const prefix = `${this.#keyPrefix}${kind}:`;
      const rawKey = (key: string) => {
        const raw = prefix + key;
        if (raw.length > MAX_KEY_LENGTH)
          throw new RangeError(
            `a ${kind} key is too long for the postgres store (${raw.length} > ${MAX_KEY_LENGTH} characters with its prefix)`,
          );
        return raw;
      };
      namespace = new KeyvRecordStore<unknown>({ kind, keyv: this.#keyv, atomic: this.#atomic, rawKey, run: this.#run });
      this.#namespaces.set(kind, namespace);
    }
    return namespace as RecordStore<T>;
  }

  async ping(): Promise<void> {
    await this.#run("ping", undefined, () => this.#query("SELECT 1"));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    await this.#pool.end();
  }

  /** Delete this store's expired rows; resolves to how many. Runs by itself every `sweepIntervalMs`. */
  async sweep(): Promise<number> {
    if (this.#closed) return 0;
    try {
      const escaped = this.#keyPrefix.replace(/[\\%_]/g, "\\$&");
      // The CASE keeps rows of other Keyv users of the table (not necessarily JSON) away from the cast.
      const rows = await this.#query(
        `DELETE FROM ${KEYV_TABLE} AS t WHERE CASE WHEN t.key LIKE $1 THEN ${EXPIRES} < $2 ELSE false END RETURNING 1`,
        [`${escaped}%`, Date.now()],
      );
      return rows.length;
    } catch (error) {
      this.#logger.warn({ backend: "postgres", error: describeError(error) }, "postgres store sweep failed");
      return 0;
    }
  }

  readonly #query: Query = async (sql, values) => {
    await this.#ensureTable();
    return (await this.#pool.query(sql, values)).rows;
  };

  /** CREATE TABLE once per store; retried by the next statement when it failed (e.g. the server was down). */
  #ensureTable(): Promise<void> {
    this.#tableReady ??= this.#pool.query(KEYV_TABLE_DDL).then(
      () => undefined,
      (error: { code?: string }) => {
        // Two processes creating the table at once: the loser waits for the winner's commit, then gets a
        // unique violation on the catalog, "relation exists" or "type exists" (the table's row type).
        if (error.code === "23505" || error.code === "42P07" || error.code === "42710") return;
        this.#tableReady = undefined;
        throw error;
      },
    );
    return this.#tableReady;
  }

  readonly #atomic: AtomicOps = {
    take: async (rawKey) => {
      const rows = await this.#query(`DELETE FROM ${KEYV_TABLE} WHERE key = $1 RETURNING value`, [rawKey]);
      return rows[0]?.value as string | undefined;
    },
    add: async (rawKey, payload, _ttlMs, now) => {
      const rows = await this.#query(
        `INSERT INTO ${KEYV_TABLE} AS t (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE ${EXPIRES} < $3::numeric
         RETURNING 1`,
        [rawKey, payload, now],
      );
      return rows.length === 1;
    },
    increment: async (rawKey, ttlMs, now) => {
      const rows = await this.#query(
        `INSERT INTO ${KEYV_TABLE} AS t (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = CASE
           WHEN ${EXPIRES} < $3::numeric THEN excluded.value
           ELSE json_build_object('value', (t.value::json->>'value')::numeric + 1, 'expires', ${EXPIRES})::text
         END
         RETURNING (value::json->>'value')::numeric AS count`,
        [rawKey, JSON.stringify({ value: 1, expires: now + ttlMs }), now],
      );
      return Number(rows[0]?.count);
    },
  };
}
