import { ConfigError } from "../../errors/config-error.ts";
import type { DemoDirectory } from "../../demo/directory/demo-directory.ts";
import { CliError } from "./cli-error.ts";
import { printConfigError } from "./print-config-error.ts";

/**
 * `start --demo-directory`: the bundled slapd with the demo's people, and the configuration to run on
 * it (src/demo/directory/demo-directory.ts). A machine without slapd gets one line naming the packages,
 * a slapd that does not start what it said; a configuration directory that is not there, the
 * configuration error's lines (then null: exit 1).
 */
export async function openDemoDirectory(
  configDir: string,
  env: NodeJS.ProcessEnv,
  stderr: NodeJS.WritableStream,
): Promise<DemoDirectory | null> {
  // Imported here: only this option needs the directory's modules.
  const { SLAPD_MISSING, startDemoDirectory } = await import("../../demo/directory/demo-directory.ts");
  let directory: DemoDirectory | undefined;
  try {
    directory = await startDemoDirectory(configDir, env);
  } catch (error) {
    // Installed but refusing to start (a broken install, a port taken meanwhile): slapd's own words, no stack.
    if (!(error instanceof ConfigError)) throw new CliError(`cannot start the demo directory: ${(error as Error).message}`);
    printConfigError(error, configDir, stderr);
    return null;
  }
  if (directory === undefined) throw new CliError(`cannot start the demo directory: ${SLAPD_MISSING}`);
  return directory;
}
