import type { ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseDocument } from "yaml";
import { freePort } from "../src/demo/kit/local-processes.ts";
import { BenchError } from "./bench-error.ts";
import { onBenchExit, spawnTracked, stop } from "./child-processes.ts";
import { pinnedNode } from "./cpu-pinning.ts";
import { PROJECT_ROOT } from "./workers.ts";
import { editsFromEnv, type ProviderEdits } from "./provider-edits.ts";

const STARTUP_TIMEOUT_MS = 30_000;

export interface RunningProvider {
  baseUrl: string;
  pid: number;
  /** Where its stdout (JSON logs) and stderr (banner, errors) go. */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts `portcullis start` pinned to `cpu`, on a copy of config/ whose data_dir is a temp dir (and whose
 * `files` replace the copy's files of those names), so
 * the bench never touches the working tree's var/. `root` is the project tree it runs from (another
 * checkout when `npm run bench:compare` runs a base revision beside the working tree). Its output goes to a log file in that temp dir
 * (removed when the bench exits). Extra node flags for the provider only, e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof` (not allowed in NODE_OPTIONS), go in BENCH_PROVIDER_NODE_ARGS; another node binary for
 * the provider (to compare Node.js versions) in BENCH_PROVIDER_NODE. `clients`: clients.yaml entries added to
 * the demo's (the DPoP and private_key_jwt scenarios' clients, bench-clients.ts).
 */
export async function startProvider(
  cpu: number | string,
  env: NodeJS.ProcessEnv,
  projectRoot = PROJECT_ROOT,
  edits: ProviderEdits = {},
  files: Record<string, string> = {},
  clients: ReadonlyArray<Record<string, unknown>> = [],
): Promise<RunningProvider> {
  const root = mkdtempSync(join(tmpdir(), "portcullis-bench-"));
  onBenchExit(() => rmSync(root, { recursive: true, force: true }));
  const port = await freePort();
  const configDir = prepareConfig(projectRoot, root, port, { ...editsFromEnv(env.BENCH_PROVIDER_EDITS), ...edits });
  // Whole files in place of the demo's (the LDAP provider's directory.yaml and empty users.yaml).
  for (const [file, text] of Object.entries(files)) writeFileSync(join(configDir, file), text);
  if (clients.length > 0) addClients(join(configDir, "clients.yaml"), clients);
  const logFile = join(root, "provider.log");

  const log = openSync(logFile, "a");
  const nodeArgs = (env.BENCH_PROVIDER_NODE_ARGS ?? "").split(/\s+/).filter((a) => a !== "");
  const { command, args } = pinnedNode(
    cpu,
    [...nodeArgs, "bin/portcullis.js", "start", "--config", configDir, "--port", String(port)],
    env.BENCH_PROVIDER_NODE,
  );
  const child = spawnTracked(command, args, { cwd: projectRoot, stdio: ["ignore", log, log] });
  closeSync(log);

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(child, `${baseUrl}/.well-known/openid-configuration`, logFile, Number(edits["listen.workers"] ?? 1));
  } catch (error) {
    await stop(child);
    throw error;
  }
  return { baseUrl, pid: child.pid!, logFile, stop: () => stop(child, 10_000) };
}

/** `projectRoot`/config copied to `root`/config with data_dir set to `root`/data and listen.port to `port` (comments and layout kept). */
function prepareConfig(projectRoot: string, root: string, port: number, edits: ProviderEdits): string {
  const configDir = join(root, "config");
  const dataDir = join(root, "data");
  cpSync(join(projectRoot, "config"), configDir, { recursive: true });
  mkdirSync(dataDir);
  const providerFile = join(configDir, "provider.yaml");
  const doc = parseDocument(readFileSync(providerFile, "utf8"));
  doc.setIn(["data_dir"], dataDir);
  // listen.port as well as --port: an overridden port would move the demo's issuer, and tokens must carry
  // DEMO_ISSUER as the ceilings' do (the provider then warns that nothing listens on the issuer's port).
  doc.setIn(["listen", "port"], port);
  // The load comes from one address: lift the per-address login budget, which is for real clients.
  doc.setIn(["security", "login_requests_per_ip", "max"], 1_000_000_000);
  for (const [path, value] of Object.entries(edits)) doc.setIn(path.split("."), value);
  writeFileSync(providerFile, doc.toString());
  // The login scenario measures a password login: the login page opens on the password form, as it
  // does for deployments that list password first (the demo opens on the trusted app's QR code).
  const loginFile = join(configDir, "login.yaml");
  const login = parseDocument(readFileSync(loginFile, "utf8"));
  login.setIn(["default_flow", "methods"], ["password"]);
  writeFileSync(loginFile, login.toString());
  return configDir;
}

/** `clients` appended to the clients of a clients.yaml (comments and layout of the rest kept). */
function addClients(file: string, clients: ReadonlyArray<Record<string, unknown>>): void {
  const doc = parseDocument(readFileSync(file, "utf8"));
  for (const client of clients) doc.addIn(["clients"], doc.createNode(client));
  writeFileSync(file, doc.toString());
}

/**
 * Until `url` answers and each of the `workers` processes has logged that it listens: a load generator's
 * connections stay with the worker that accepted them, so one opened before the last worker listens
 * would never reach it.
 */
async function waitUntilServing(child: ChildProcess, url: string, logFile: string, workers: number): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new BenchError(`the provider exited (${child.exitCode ?? child.signalCode}) during startup:\n${logTail(logFile)}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.ok && listening(logFile) >= workers) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new BenchError(`the provider did not answer ${url} within ${STARTUP_TIMEOUT_MS / 1000} s:\n${logTail(logFile)}`);
}

function listening(logFile: string): number {
  return readFileSync(logFile, "utf8").split('"msg":"portcullis listening"').length - 1;
}

export function logTail(logFile: string, lines = 20): string {
  try {
    return readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
