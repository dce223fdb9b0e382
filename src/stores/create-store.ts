import { join } from "node:path";
import type { Logger } from "pino";
import { EmbeddedStore } from "./embedded-store.ts";
import { redactUrl } from "./redact-url.ts";
import { takeKeyPrefix } from "./key-prefix.ts";
import { parseRedisUrl } from "./redis-url.ts";
import type { Store } from "./store.ts";
import type { OperationObserver } from "./store-operation.ts";
import { StoreUrlError } from "./store-url-error.ts";

export interface CreateStoreOptions {
  /** The provider's data directory; the embedded store keeps its durable records under `<dataDir>/store`. */
  dataDir: string;
  logger: Logger;
  /** Told of every store operation (src/metrics/ counts them). */
  observe?: OperationObserver | undefined;
}

/**
 * The store named by `store.url` in provider.yaml:
 * - `embedded` (or `embedded:`): in process, durable kinds journaled under `<dataDir>/store`;
 * - `redis://…`, `rediss://…`: Redis; `redis+sentinel://HOST:PORT,…/PRIMARY`: Redis behind Sentinel (redis-url.ts);
 * - `postgres://…`, `postgresql://…`: PostgreSQL.
 * Both network URLs take an optional `?prefix=NAME` (see takeKeyPrefix).
 * Network stores are returned even while their server is down: operations then fail fast with
 * StoreUnavailableError (503) until it is back. A network store's client is loaded only when the URL
 * names it: the Redis client alone is some 400 modules, a third of an embedded start's loading.
 */
export async function createStore(url: string, options: CreateStoreOptions): Promise<Store> {
  const logger = options.logger.child({ component: "store" });
  const { observe } = options;
  const scheme = schemeOf(url);
  switch (scheme) {
    case "embedded":
      if (url !== "embedded" && url !== "embedded:") {
        throw new StoreUrlError(`store URL "${url}": the embedded store takes no host or path; write "embedded"`);
      }
      return new EmbeddedStore({ dir: join(options.dataDir, "store"), logger, observe });
    case "redis":
    case "rediss":
    case "redis+sentinel":
      return (await import("./redis-store.ts")).RedisStore.open({ logger, observe, ...parseRedisUrl(url) });
    case "postgres":
    case "postgresql":
      return new (await import("./postgres-store.ts")).PostgresStore({ logger, observe, ...splitKeyPrefix(url) });
    default:
      throw new StoreUrlError(
        `store URL scheme "${scheme ?? ""}" is not supported (in "${redactUrl(url)}"): use "embedded", "redis://", "rediss://", "redis+sentinel://", "postgres://" or "postgresql://"`,
      );
  }
}

/** The URL without our `?prefix=NAME` (see takeKeyPrefix), and the key prefix it named. */
function splitKeyPrefix(url: string): { url: string; keyPrefix?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // URL's own error carries the whole input, password included: say what is wrong without it.
    throw new StoreUrlError(`store URL "${redactUrl(url)}" is not a valid URL`);
  }
  const keyPrefix = takeKeyPrefix(parsed.searchParams);
  return keyPrefix === undefined ? { url } : { url: parsed.toString(), keyPrefix };
}

function schemeOf(url: string): string | undefined {
  if (url === "embedded") return "embedded";
  return /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
}
