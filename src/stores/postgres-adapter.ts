import { KeyvPostgres, type KeyvPostgresOptions } from "@keyv/postgres";

/** Runs one statement and resolves to its rows. */
export type Query = (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/** The table Keyv's adapter reads and writes: key VARCHAR(255) primary key, value TEXT (Keyv's JSON payload). */
export const KEYV_TABLE = "public.keyv";
export const KEYV_TABLE_DDL = `CREATE TABLE IF NOT EXISTS ${KEYV_TABLE}(key VARCHAR(255) PRIMARY KEY, value TEXT)`;
export const MAX_KEY_LENGTH = 255;

const OWNED_QUERY = Symbol("ownedQuery");

/**
 * Keyv's PostgreSQL adapter, on a query function of ours:
 * - @keyv/postgres keeps one module-wide pool per URI: two stores on one URI share it, its `disconnect()`
 *   ends it for both, a store on another URI silently orphans it, and nobody can attach the pool `error`
 *   listener without which a dropped idle connection crashes the process. Our store owns its pool instead,
 *   listens to it, and ends only that; `disconnect()` here does nothing.
 * - Its `delete()` is a SELECT then a DELETE. Keyv calls `delete()` only for a value it has just read as
 *   expired, so ours removes the row only if it is still expired: a concurrent `add` may have replaced it.
 */
export class OwnedPoolPostgresAdapter extends KeyvPostgres {
  constructor(query: Query) {
    // The super constructor calls connect() before this class's fields exist: the query travels in opts.
    const options = { schema: "public", table: "keyv", [OWNED_QUERY]: query };
    super(options as KeyvPostgresOptions);
    // The adapter's own query waits behind its one CREATE TABLE attempt (a whole connect timeout while the
    // server is down). Ours creates the table itself when needed, so statements go straight to it.
    this.query = query;
  }

  override async connect(): Promise<(sql: string, values?: unknown[]) => Promise<any[]>> {
    return (this.opts as { [OWNED_QUERY]: Query })[OWNED_QUERY];
  }

  override async disconnect(): Promise<void> {}

  override async delete(key: string): Promise<boolean> {
    const rows = await this.query(`DELETE FROM ${KEYV_TABLE} WHERE key = $1 AND (value::json->>'expires')::numeric < $2 RETURNING key`, [
      key,
      Date.now(),
    ]);
    return rows.length > 0;
  }
}
