import cluster from "node:cluster";
import { ConfigError } from "../../errors/config-error.ts";
import type { LoadedConfig } from "../../config/load-config.ts";
import { loadInstalledConfig } from "../../extensions/installed-extensions.ts";
import { workerCount } from "../../cluster/worker-count.ts";
import { stopAcceptingTogether } from "../../cluster/drain-together.ts";
import { StoreUrlError } from "../../stores/store-url-error.ts";
import { StoreUnavailableError } from "../../stores/store-unavailable-error.ts";
import { DirectoryInUseError } from "../../stores/directory-lock.ts";
import { StartupError } from "../../http/startup-error.ts";
import { MetricsListenError } from "../../metrics/metrics-server.ts";
import { CliError } from "../support/cli-error.ts";
import { printConfigError } from "../support/print-config-error.ts";
import { resolveCliSettings, type CliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";
import { PidFileInUseError, writePidFile } from "../../reload/pid-file.ts";
import { listenForStartSignals, type StartSignals } from "../support/start-signals.ts";
import { printStartBanner } from "../support/print-start-banner.ts";
import type { Command, CommandContext } from "../support/command.ts";
import { openDemoDirectory } from "../support/open-demo-directory.ts";
import type { DemoDirectory } from "../../demo/directory/demo-directory.ts";

/** Listen failures an operator fixes (port taken, privileged port, wrong address): one line, no stack. */
const LISTEN_ERRORS = new Set(["EADDRINUSE", "EACCES", "EADDRNOTAVAIL"]);

/** After close(), give stray handles this long before exiting anyway: a stop must not hang. */
const EXIT_GRACE_MS = 2_000;

/**
 * `portcullis start`: run the provider until SIGINT or SIGTERM; SIGHUP (or `portcullis reload`) reloads the
 * configuration. With `listen.workers` above 1 this process becomes the cluster's primary
 * (src/cluster/run-primary.ts), which forwards SIGHUP, and each worker it forks runs this same command as a
 * provider process. With --demo-directory it first starts the bundled OpenLDAP directory with the demo's
 * people and runs on a copy of the configuration pointed at it (src/demo/directory/), stopping it last.
 */
export const startCommand: Command = {
  name: "start",
  summary: "start the provider (listens until SIGINT or SIGTERM)",
  options: {
    ...CONFIG_OPTION,
    port: { type: "string", valueName: "N", description: "port to listen on (default: $PORT, else listen.port in provider.yaml)" },
    "demo-parties": {
      type: "boolean",
      description: "also start the custom QR-code login demo's channel-account service (4100) and sites (3005, 3006); `npm start` does",
    },
    "demo-directory": {
      type: "boolean",
      description:
        "run on a bundled OpenLDAP directory (slapd on a free port) holding the demo's people instead of users.yaml; `npm run demo:ldap` does",
    },
  },
  async run({ values, stderr, env }) {
    // First of all: a signal that lands while the provider starts must not kill it half-started.
    const signals = listenForStartSignals();
    const settings = resolveCliSettings(values, env);
    // The directory first: the configuration the provider loads points at it.
    const directory = values["demo-directory"] ? await openDemoDirectory(settings.configDir, env, stderr) : undefined;
    if (directory === null) return 1;
    try {
      return await serve({ ...settings, values, stderr, signals, directory });
    } finally {
      // Stopped with the provider, and with a start that failed.
      await directory?.stop();
    }
  },
};

interface Serving extends CliSettings {
  values: CommandContext["values"];
  stderr: NodeJS.WritableStream;
  signals: StartSignals;
  directory: DemoDirectory | undefined;
}

/** The provider (or a cluster's primary) until the first SIGINT or SIGTERM. */
async function serve({ values, stderr, signals, directory, ...settings }: Serving): Promise<number> {
  const configDir = directory?.configDir ?? settings.configDir;
  const { port } = settings;
  // Imported here, not at the top: the other commands should not load the HTTP stack.
  const { startProvider } = await import("../../start-provider.ts");
  let running: Awaited<ReturnType<typeof startProvider>>;
  const worker = cluster.isWorker ? cluster.worker!.id : undefined;
  try {
    const config = await loadInstalledConfig(configDir);
    const workers = workerCount(config.provider.listen.workers);
    // Each worker would start a directory of its own: the demo's is for one provider process.
    if (directory && workers > 1) throw new CliError("--demo-directory runs one provider process: set listen.workers to 1");
    if (cluster.isPrimary && workers > 1) return await runPrimary(config, workers, signals, stderr);
    running = await startProvider({
      configDir,
      config,
      ...(port === undefined ? {} : { port }),
      ...(worker !== undefined && { worker }),
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      printConfigError(error, configDir, stderr);
      return 1;
    }
    // Whatever still runs (a store client retrying) must not keep a failed start alive: a supervisor
    // restarts the provider only once it has exited.
    setTimeout(() => process.exit(1), EXIT_GRACE_MS).unref();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new CliError(`cannot start: ${portInUse(error as ListenError)}`);
    if (
      error instanceof StartupError ||
      error instanceof MetricsListenError ||
      error instanceof StoreUnavailableError ||
      error instanceof StoreUrlError ||
      error instanceof DirectoryInUseError ||
      (code !== undefined && LISTEN_ERRORS.has(code))
    ) {
      throw new CliError(`cannot start: ${(error as Error).message}`);
    }
    throw error;
  }
  let removePidFile: () => void = () => {};
  try {
    // The process the operator signals writes the pid file: a single process, or the cluster's primary.
    if (worker === undefined) removePidFile = writePidFile(running.provider.settings.data_dir);
  } catch (error) {
    await running.close();
    if (error instanceof PidFileInUseError) throw new CliError(`cannot start: ${error.message}`);
    throw error;
  }
  // Every provider process reloads itself on SIGHUP (a cluster primary forwards it to its workers).
  signals.onHangup(() => void running.reload());
  // Printed once it answers its signals: whoever waits for "listening on" may signal it at once. A
  // worker prints it only as the first: the others serve the same port.
  const first = (worker ?? 1) === 1;
  if (first) printStartBanner(running, stderr);
  if (first && directory) stderr.write(`${directory.lines.join("\n")}\n\n`);
  const demo = values["demo-parties"] && first ? await startDemo(running.provider.issuer, configDir, stderr) : undefined;
  const signal = await signals.shutdown;
  stderr.write(`${signal} received, shutting down\n`);
  await demo?.close();
  // A cluster worker drains only once no worker accepts any more (src/cluster/drain-together.ts).
  if (worker !== undefined) await stopAcceptingTogether(() => running.stopAccepting());
  await running.close();
  removePidFile();
  // A worker's IPC channel to the primary would keep it alive: it is done, so it exits now.
  if (worker !== undefined) process.exit(0);
  setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
  return 0;
}

/** This process is the primary of `workers` provider processes (imported here: a provider process needs none of it). */
async function runPrimary(config: LoadedConfig, workers: number, signals: StartSignals, stderr: NodeJS.WritableStream): Promise<number> {
  const { runPrimary } = await import("../../cluster/run-primary.ts");
  // `portcullis reload` signals the primary, which forwards SIGHUP to every worker.
  let removePidFile: () => void;
  try {
    removePidFile = writePidFile(config.provider.data_dir);
  } catch (error) {
    if (error instanceof PidFileInUseError) throw new CliError(`cannot start: ${error.message}`);
    throw error;
  }
  const code = await runPrimary({ config, workers, signals, stderr });
  removePidFile();
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  return code;
}

/** The custom QR-code login demo's other parties (src/demo/sites/start-demo-parties.ts), and where they are. */
async function startDemo(issuer: string, configDir: string, stderr: NodeJS.WritableStream) {
  const { startDemoParties } = await import("../../demo/sites/start-demo-parties.ts");
  const demo = await startDemoParties(issuer, configDir);
  stderr.write(['  The custom QR-code login demo (docs/demo-tour.md, "Custom QR-code login"):', ...demo.lines, ""].join("\n") + "\n");
  return demo;
}

type ListenError = NodeJS.ErrnoException & { address?: string; port?: number };

function portInUse(error: ListenError): string {
  return `port ${error.port} on ${error.address} is already in use; choose another port with --port N or the PORT environment variable`;
}
