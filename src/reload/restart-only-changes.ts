import type { LoadedConfig } from "../config/load-config.ts";
import { diffConfig } from "./config-diff.ts";

/**
 * The settings a running provider holds open or bound at start, so a reload refuses to change them
 * (docs/decisions.md "Reloading the configuration"): provider.yaml as a whole (listen address, store,
 * data_dir, issuer, encryption key, keys, the lifetimes and limits its services were built with,
 * logging), login.yaml's factor methods (bound to the provider, their views and routes mounted) and eID
 * upstreams (their relying parties), and channels.yaml (the channel directory is built from it at start:
 * the embedded one holds the list, the HTTP one its client and token), and directory.yaml (an LDAP
 * directory's connections and cache are opened at start). By file, the key prefixes; "": the whole file.
 */
const RESTART_ONLY = { provider: [""], login: ["methods", "eid_upstreams"], channels: [""], directory: [""] } as const;

/** Whether a change at `path` of `file` (e.g. "login.yaml", "methods.totp") needs a restart. */
export function needsRestart(file: string, path: string): boolean {
  const prefixes: readonly string[] = RESTART_ONLY[file.replace(/\.yaml$/, "") as keyof typeof RESTART_ONLY] ?? [];
  return prefixes.some((prefix) => prefix === "" || path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`));
}

/** A restart-only key that differs: its file and key (for log queries), and the line an operator reads. */
export interface RestartOnlyChange {
  file: string;
  key: string;
  message: string;
}

/** Each restart-only key that differs between the running configuration and `next`. */
export function restartOnlyChanges(running: LoadedConfig, next: LoadedConfig): RestartOnlyChange[] {
  return (Object.keys(RESTART_ONLY) as Array<keyof typeof RESTART_ONLY>).flatMap((name) =>
    diffConfig(running[name], next[name])
      .filter((change) => needsRestart(name, change.path))
      .map((change) => ({
        file: `${name}.yaml`,
        key: change.path,
        message: `${name}.yaml ${change.path}: cannot change without a restart (${change.kind}); restart the provider to apply it`,
      })),
  );
}
