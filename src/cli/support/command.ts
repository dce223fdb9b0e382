/** What every command sees: its parsed arguments and the process's streams and environment. */
export interface CommandContext {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export interface CommandOption {
  type: "string" | "boolean";
  short?: string;
  /** Placeholder shown in help, e.g. DIR. */
  valueName?: string;
  description: string;
}

/**
 * One entry of the CLI's command table. Options are declared once and serve both node:util parseArgs
 * and the help text. `run` resolves to the process exit code.
 */
export interface Command {
  name: string;
  summary: string;
  /** Positional arguments as shown in usage, e.g. "[SECRET]"; at most this many are accepted. */
  positionals?: { usage: string; max: number };
  options: Record<string, CommandOption>;
  run(context: CommandContext): Promise<number>;
}

/** `portcullis start [--config DIR] [--port N]` */
export function commandUsage(command: Command): string {
  const options = Object.entries(command.options).map(([name, option]) =>
    option.type === "string" ? `[--${name} ${option.valueName ?? "VALUE"}]` : `[--${name}]`,
  );
  return ["portcullis", command.name, ...options, command.positionals?.usage ?? ""].filter(Boolean).join(" ");
}
