/**
 * A provider in an OS process of its own, started as an operator starts it (`portcullis start --config
 * DIR --port PORT`), for tests where nodes of one deployment must not share memory.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./services.ts";
import { copyConfig, type TestProvider } from "./test-provider.ts";

const BIN = fileURLToPath(new URL("../../bin/portcullis.js", import.meta.url));
/** Generous: start-up loads the TypeScript sources, which is slow on a busy machine (several nodes start at once). */
const STARTUP_MS = 60_000;

export interface ProviderProcess {
  /** Where this node listens (its own address, not necessarily the issuer). */
  url: string;
  pid: number;
  /** False once the process has exited (or was killed). */
  alive(): boolean;
  /** What the process wrote to stderr so far (banner, fatal errors). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after 5 s; removes the node's config and data directories. */
  stop(): Promise<void>;
}

/**
 * Starts another node of `node`'s deployment in its own process: a copy of its config directory (same
 * issuer, store URL with its prefix, and encryption key file), with a data directory and port of its own.
 */
export async function startSiblingProcess(node: Pick<TestProvider, "configDir">): Promise<ProviderProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
  const port = await freePort();
  // listen.port too, not only --port: an overridden port would move the deployment's loopback issuer to this node.
  const configDir = copyConfig({ "provider.yaml": { data_dir: dataDir, "listen.port": port } }, node.configDir);
  const child = spawn(process.execPath, [BIN, "start", "--config", configDir, "--port", String(port)], {
    env: { ...process.env, PORTCULLIS_CONFIG: "", PORT: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const cleanUp = () => {
    rmSync(configDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    cleanUp();
  };

  const deadline = Date.now() + STARTUP_MS;
  let url: string | undefined;
  while (url === undefined && child.exitCode === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    url = /listening on (\S+)/.exec(stderr)?.[1];
  }
  if (url === undefined) {
    await stop();
    throw new Error(`portcullis start did not listen within ${STARTUP_MS / 1000} s:\n${stderr}`);
  }
  return { url, pid: child.pid!, alive: () => child.exitCode === null && child.signalCode === null, stderr: () => stderr, stop };
}

/** `url` (a redirect to the issuer, a form action) with the host of `node`: the same request, sent to another node. */
export function onNode(url: string, node: { url: string }): string {
  const moved = new URL(url);
  moved.host = new URL(node.url).host;
  return moved.href;
}
