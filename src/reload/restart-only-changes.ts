import type { LoadedConfig } from "../config/load-config.ts";
import { diffConfig } from "./config-diff.ts";

/**
 * The settings a running provider holds open or bound at start, so a reload refuses to change them
 * (docs/decisions.md "Reloading the configuration"): provider.yaml as a whole (listen address, store,
 * data_dir, issuer, encryption key, keys, lifetimes the services were built with, logging), login.yaml's
 * factor methods (bound to the provider, their views and routes mounted) and eID upstreams (their
 * relying parties), and channels.yaml's directory (its client). Each is file and key: what to restart for.
 */
const RESTART_ONLY: ReadonlyArray<{ file: string; section: (config: LoadedConfig) => unknown; prefix?: string }> = [
  { file: "provider.yaml", section: (c) => c.provider },
  { file: "login.yaml", section: (c) => c.login.methods, prefix: "methods" },
  { file: "login.yaml", section: (c) => c.login.eid_upstreams, prefix: "eid_upstreams" },
  { file: "channels.yaml", section: (c) => c.channels.directory, prefix: "directory" },
];

/** One line per restart-only key that differs between the running configuration and `next`. */
export function restartOnlyChanges(running: LoadedConfig, next: LoadedConfig): string[] {
  return RESTART_ONLY.flatMap(({ file, section, prefix }) =>
    diffConfig(section(running), section(next), prefix).map((change) => `${file} ${change.path || prefix}: cannot change without a restart (${change.kind}); restart the provider to apply it`),
  );
}
