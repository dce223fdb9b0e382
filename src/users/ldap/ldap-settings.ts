import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../../errors/config-error.ts";
import type { ConnectionOptions } from "node:tls";
import type { LdapDirectoryConfig } from "../../config/types.generated.ts";
import { parseDuration } from "../../time/duration.ts";

/** directory.yaml's `ldap` block, as loaded (defaults filled). */
export type LdapConfig = LdapDirectoryConfig;

/** What the LDAP directory works with: the configuration with durations in milliseconds and the CA file read. */
export interface LdapSettings {
  readonly config: LdapConfig;
  readonly url: string;
  readonly startTls: boolean;
  /** For ldaps:// and StartTLS; certificates are always verified. */
  readonly tls: ConnectionOptions;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly maxConnections: number;
  readonly cacheTtlMs: number;
}

/** The settings of `config`; `configDir` resolves a relative `ca_file`. A CA file that cannot be read is a ConfigError. */
export function ldapSettings(config: LdapConfig, configDir: string): LdapSettings {
  const ca = config.ca_file === undefined ? undefined : readCa(configDir, config.ca_file);
  return {
    config,
    url: config.url,
    startTls: config.start_tls,
    tls: { rejectUnauthorized: true, ...(ca !== undefined && { ca }), servername: new URL(config.url).hostname },
    connectTimeoutMs: parseDuration(config.connect_timeout) * 1000,
    operationTimeoutMs: parseDuration(config.operation_timeout) * 1000,
    maxConnections: config.max_connections,
    cacheTtlMs: parseDuration(config.cache_ttl) * 1000,
  };
}

function readCa(configDir: string, file: string): string {
  try {
    return readFileSync(resolve(configDir, file), "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError([
      { file: join(configDir, "directory.yaml"), path: "ldap.ca_file", message: `cannot be read (${reason})`, value: file },
    ]);
  }
}
