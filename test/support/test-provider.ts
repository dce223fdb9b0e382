import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { parseDocument } from "yaml";
import type { Clock } from "../../src/time/clock.ts";
import type { Store } from "../../src/stores/store.ts";
import { startProvider, type RunningProvider } from "../../src/start-provider.ts";
import { freePort } from "./services.ts";

export const DEMO_CONFIG = resolve(import.meta.dirname, "../../config");

export interface TestProvider extends RunningProvider {
  issuer: string;
  configDir: string;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The raw log text, for "never logs a secret" checks. */
  logText(): string;
}

export interface TestProviderOptions {
  storeUrl?: string;
  /** The issuer, when several nodes of one deployment must share it; default: this node's own address. */
  issuer?: string;
  /** The provider's clock (a test moves it); the system clock otherwise. */
  clock?: Clock;
  /** Edits to the copied config, as YAML paths → values, per file (e.g. { "provider.yaml": { "logging.level": "debug" } }). */
  edits?: Record<string, Record<string, unknown>>;
  /** A store object to use instead of opening `storeUrl` (which the config still names); the caller closes it. */
  store?: Store;
  /** Whole files written into the copied config before the edits (e.g. directory.yaml for an LDAP directory). */
  files?: Record<string, string>;
}

/** Copies a config directory to a temp dir and applies dotted-path edits to its YAML files. */
export function copyConfig(
  edits: Record<string, Record<string, unknown>> = {},
  from = DEMO_CONFIG,
  files: Record<string, string> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-config-"));
  cpSync(from, dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  for (const [file, changes] of Object.entries(edits)) editConfig(dir, file, changes);
  return dir;
}

/** Applies dotted-path edits to one YAML file of a config directory, in place (a reload test edits a running provider's files). */
export function editConfig(dir: string, file: string, changes: Record<string, unknown>): void {
  const path = join(dir, file);
  const doc = parseDocument(readFileSync(path, "utf8"));
  for (const [dotted, value] of Object.entries(changes)) {
    const at = dotted.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    // A last segment `+<n>` appends to the list (test/http/helpers.ts appendTo); anything else sets the value there.
    if (String(at.at(-1)).startsWith("+")) doc.addIn(at.slice(0, -1), value);
    else doc.setIn(at, value);
  }
  writeFileSync(path, doc.toString());
}

/**
 * Starts a real provider on a free loopback port with a copy of the demo config whose issuer is that
 * address, a private data directory, and logs captured in memory.
 */
export async function startTestProvider(options: TestProviderOptions = {}): Promise<TestProvider> {
  const port = await freePort();
  const issuer = options.issuer ?? `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
  const edits = { ...options.edits };
  edits["provider.yaml"] = {
    issuer,
    "listen.port": port,
    data_dir: dataDir,
    "store.url": options.storeUrl ?? "embedded",
    ...edits["provider.yaml"],
  };
  // A network store needs an encryption key (config rule); the embedded one generates its own.
  const networkStore = (options.storeUrl ?? "embedded") !== "embedded";
  if (networkStore) edits["provider.yaml"] = { "secrets.encryption_key": "${file:encryption.key}", ...edits["provider.yaml"] };
  const configDir = copyConfig(edits, DEMO_CONFIG, options.files);
  if (networkStore) writeFileSync(join(configDir, "encryption.key"), "test-encryption-key-material-of-more-than-32-characters\n");
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  // No drain on close: the test is the only client, and done (test/cli/start-shutdown.test.ts covers the drain).
  const running = await startProvider({
    configDir,
    logDestination: destination,
    drainMs: 0,
    ...(options.clock && { clock: options.clock }),
    ...(options.store && { store: options.store }),
  });
  return {
    ...running,
    issuer,
    configDir,
    get logs() {
      return chunks
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => chunks.join(""),
    async close() {
      await running.close();
      rmSync(configDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Any request, answered as status, headers, the text, and the parsed JSON when it is JSON. */
export async function send(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** POSTs a form (see send for the answer). */
export function postForm(url: string, form: Record<string, string> | string, headers: Record<string, string> = {}) {
  const body = typeof form === "string" ? form : new URLSearchParams(form).toString();
  return send(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body });
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
