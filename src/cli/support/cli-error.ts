/**
 * A mistake by the person at the terminal (bad option, empty password, Ctrl-C): printed as one line,
 * never with a stack. `showUsage` adds the command's usage; exit code 2 is the Unix convention for
 * usage errors.
 */
export class CliError extends Error {
  static readonly code: string = "ERR_CLI";
  readonly code: string = "ERR_CLI";
  override readonly name = "CliError";
  readonly exitCode: number;
  readonly showUsage: boolean;

  constructor(message: string, options: { exitCode?: number; showUsage?: boolean } = {}) {
    super(message);
    this.exitCode = options.exitCode ?? (options.showUsage ? 2 : 1);
    this.showUsage = options.showUsage ?? false;
  }
}
