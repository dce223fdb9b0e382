import { isDeepStrictEqual } from "node:util";

/** One key that differs between two versions of a configuration file. */
export interface ConfigChange {
  kind: "added" | "removed" | "changed";
  /** Readable key path: `clients[demo-web].redirect_uris`, `login_types.2FA.methods`. */
  path: string;
  before?: unknown;
  after?: unknown;
}

/** The keys that name an entry of a list of maps (clients by client_id, users by username…), in preference order. */
const ENTRY_KEYS = ["client_id", "username", "name", "id"];

/**
 * What changed from `before` to `after`, key by key. Maps are compared per key; a list of maps whose
 * entries carry an identifying key (client_id, username, name, id) per entry, so adding a client shows
 * one added client rather than every later index changed; any other list as one value.
 */
export function diffConfig(before: unknown, after: unknown, path = ""): ConfigChange[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => diffEntry(before[key], after[key], path === "" ? key : `${path}.${key}`));
  }
  const entryKey = Array.isArray(before) && Array.isArray(after) ? identifyingKey([...before, ...after]) : undefined;
  if (entryKey !== undefined) {
    const byId = (list: unknown[]) => new Map(list.map((entry) => [String((entry as Record<string, unknown>)[entryKey]), entry]));
    const [old, now] = [byId(before as unknown[]), byId(after as unknown[])];
    const ids = [...new Set([...old.keys(), ...now.keys()])];
    return ids.flatMap((id) => diffEntry(old.get(id), now.get(id), `${path}[${id}]`));
  }
  return [{ kind: "changed", path, before, after }];
}

function diffEntry(before: unknown, after: unknown, path: string): ConfigChange[] {
  if (before === undefined && after !== undefined) return [{ kind: "added", path, after }];
  if (after === undefined && before !== undefined) return [{ kind: "removed", path, before }];
  return diffConfig(before, after, path);
}

/** The key every entry has, with distinct values: what names the entries of this list. */
function identifyingKey(entries: unknown[]): string | undefined {
  if (entries.length === 0 || !entries.every(isMap)) return undefined;
  return ENTRY_KEYS.find((key) => entries.every((entry) => typeof (entry as Record<string, unknown>)[key] === "string"));
}

const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
