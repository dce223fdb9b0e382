import { join } from "node:path";
import type { Logger } from "pino";
import { EmbeddedStore } from "./embedded-store.ts";
import { PostgresStore } from "./postgres-store.ts";
import { RedisStore } from "./redis-store.ts";
import { redactUrl } from "./redact-url.ts";
import type { Store } from "./store.ts";
import type { OperationObserver } from "./store-operation.ts";

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
 * - `redis://…`, `rediss://…`: Redis;
 * - `postgres://…`, `postgresql://…`: PostgreSQL.
 * Both network URLs take an optional `?prefix=NAME` (see splitKeyPrefix).
 * Network stores are returned even while their server is down: operations then fail fast with
 * StoreUnavailableError (503) until it is back.
 */
export async function createStore(url: string, options: CreateStoreOptions): Promise<Store> {
  const logger = options.logger.child({ component: "store" });
  const { observe } = options;
  const scheme = schemeOf(url);
  switch (scheme) {
    case "embedded":
      if (url !== "embedded" && url !== "embedded:") {
        throw new Error(`store URL "${url}": the embedded store takes no host or path; write "embedded"`);
      }
      return new EmbeddedStore({ dir: join(options.dataDir, "store"), logger, observe });
    case "redis":
    case "rediss":
      return RedisStore.open({ logger, observe, ...splitKeyPrefix(url) });
    case "postgres":
    case "postgresql":
      return new PostgresStore({ logger, observe, ...splitKeyPrefix(url) });
    default:
      throw new Error(
        `store URL scheme "${scheme ?? ""}" is not supported (in "${redactUrl(url)}"): use "embedded", "redis://", "rediss://", "postgres://" or "postgresql://"`,
      );
  }
}

/**
 * `?prefix=NAME` on a Redis or PostgreSQL URL namespaces every key (`NAME:<kind>:<key>`), so several
 * deployments — or test runs — can share one server. It is ours, so it is removed before the driver sees the URL.
 */
function splitKeyPrefix(url: string): { url: string; keyPrefix?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // URL's own error carries the whole input, password included: say what is wrong without it.
    throw new Error(`store URL "${redactUrl(url)}" is not a valid URL`);
  }
  const prefix = parsed.searchParams.get("prefix");
  if (prefix === null) return { url };
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(prefix)) throw new Error(`store URL prefix "${prefix}" must be 1-64 letters, digits, '.', '_' or '-'`);
  parsed.searchParams.delete("prefix");
  return { url: parsed.toString(), keyPrefix: `${prefix}:` };
}

function schemeOf(url: string): string | undefined {
  if (url === "embedded") return "embedded";
  return /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
}
