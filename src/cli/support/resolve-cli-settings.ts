import { CliError } from "./cli-error.ts";

export interface CliSettings {
  configDir: string;
  /** Undefined: use listen.port from provider.yaml. */
  port: number | undefined;
}

/**
 * The one place where command-line flags, environment and defaults meet, so every command agrees:
 * config directory from --config, else PORTCULLIS_CONFIG, else ./config; port from --port, else PORT,
 * else the config file. Empty environment variables count as unset.
 */
export function resolveCliSettings(
  values: { config?: string | boolean | undefined; port?: string | boolean | undefined },
  env: NodeJS.ProcessEnv,
): CliSettings {
  const configDir = stringValue(values.config) ?? (env.PORTCULLIS_CONFIG || undefined) ?? "config";
  const portFlag = stringValue(values.port);
  const port =
    portFlag !== undefined ? parsePort(portFlag, "--port") : env.PORT ? parsePort(env.PORT, "the PORT environment variable") : undefined;
  return { configDir, port };
}

function stringValue(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function parsePort(text: string, source: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new CliError(`${source} must be a port number from 0 to 65535 (got ${JSON.stringify(text)})`, { showUsage: true });
  }
  return port;
}
