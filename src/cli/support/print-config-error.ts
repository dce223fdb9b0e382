import { formatConfigIssue, type ConfigError } from "../../errors/config-error.ts";

/** Every issue on its own line, then a summary naming the directory: what check-config and start print. */
export function printConfigError(error: ConfigError, configDir: string, stderr: NodeJS.WritableStream): void {
  for (const issue of error.issues) stderr.write(`${formatConfigIssue(issue)}\n`);
  const count = error.issues.length;
  stderr.write(`config invalid: ${configDir} (${count} ${count === 1 ? "issue" : "issues"})\n`);
}
