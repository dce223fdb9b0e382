import { ConfigError } from "../../errors/config-error.ts";
import { StoreUnavailableError } from "../../stores/store-unavailable-error.ts";
import { DirectoryInUseError } from "../../stores/directory-lock.ts";
import { StartupError } from "../../http/startup-error.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { printConfigError } from "../support/print-config-error.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";
import { PidFileInUseError, writePidFile } from "../../reload/pid-file.ts";
import { installReloadSignal } from "../../reload/install-reload-signal.ts";

/** Listen failures an operator fixes (port taken, privileged port, wrong address): one line, no stack. */
const LISTEN_ERRORS = new Set(["EADDRINUSE", "EACCES", "EADDRNOTAVAIL"]);

/** After close(), give stray handles this long before exiting anyway: a stop must not hang. */
const EXIT_GRACE_MS = 2_000;

/** `portcullis start`: run the provider until SIGINT or SIGTERM; SIGHUP (or `portcullis reload`) reloads the configuration. */
export const startCommand: Command = {
  name: "start",
  summary: "start the provider (listens until SIGINT or SIGTERM)",
  options: {
    ...CONFIG_OPTION,
    port: { type: "string", valueName: "N", description: "port to listen on (default: $PORT, else listen.port in provider.yaml)" },
    "demo-parties": { type: "boolean", description: "also start the custom QR-code login demo's channel-account service (4100) and sites (3005, 3006); `npm start` does" },
  },
  async run({ values, stderr, env }) {
    const { configDir, port } = resolveCliSettings(values, env);
    // Imported here, not at the top: the other commands should not load the HTTP stack.
    const { startProvider } = await import("../../http/start-provider.ts");
    let running: Awaited<ReturnType<typeof startProvider>>;
    try {
      running = await startProvider({ configDir, ...(port === undefined ? {} : { port }), banner: true });
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
      if (error instanceof StartupError || error instanceof StoreUnavailableError || error instanceof DirectoryInUseError || (code !== undefined && LISTEN_ERRORS.has(code))) {
        throw new CliError(`cannot start: ${(error as Error).message}`);
      }
      throw error;
    }
    let removePidFile: () => void;
    try {
      removePidFile = writePidFile(running.provider.config.provider.data_dir);
    } catch (error) {
      await running.close();
      if (error instanceof PidFileInUseError) throw new CliError(`cannot start: ${error.message}`);
      throw error;
    }
    // The process the operator signals: it reloads itself (a cluster primary would forward SIGHUP to its workers).
    // Kept until exit: uninstalled, a SIGHUP during the graceful stop would kill the process (Node's default).
    installReloadSignal(running);
    const demo = values["demo-parties"] ? await startDemo(running.provider.issuer, configDir, stderr) : undefined;
    const signal = await nextShutdownSignal();
    stderr.write(`${signal} received, shutting down\n`);
    // A second Ctrl-C while closing means "now".
    process.once("SIGINT", () => process.exit(130));
    await demo?.close();
    await running.close();
    removePidFile();
    setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
    return 0;
  },
};

/** The custom QR-code login demo's other parties (src/demo-sites/start-demo-parties.ts), and where they are. */
async function startDemo(issuer: string, configDir: string, stderr: NodeJS.WritableStream) {
  const { startDemoParties } = await import("../../demo-sites/start-demo-parties.ts");
  const demo = await startDemoParties(issuer, configDir);
  stderr.write(["  The custom QR-code login demo (README.md, \"Custom QR-code login\"):", ...demo.lines, ""].join("\n") + "\n");
  return demo;
}

type ListenError = NodeJS.ErrnoException & { address?: string; port?: number };

function portInUse(error: ListenError): string {
  return `port ${error.port} on ${error.address} is already in use; choose another port with --port N or the PORT environment variable`;
}

function nextShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
