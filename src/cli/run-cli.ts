import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError } from "./support/cli-error.ts";
import { commandUsage, type Command, type CommandContext } from "./support/command.ts";
import { checkConfigCommand } from "./commands/check-config.ts";
import { hashPasswordCommand } from "./commands/hash-password.ts";
import { hashSecretCommand } from "./commands/hash-secret.ts";
import { startCommand } from "./commands/start.ts";
import { methodsCommand } from "./commands/methods.ts";
import { appCommand } from "./commands/app.ts";
import { vendorCommand } from "./commands/vendor.ts";
import { policyCommand } from "./commands/policy.ts";
import { keysCommand } from "./commands/keys.ts";
import { auditCommand } from "./commands/audit.ts";
import { reloadCommand } from "./commands/reload.ts";

/**
 * `portcullis <command> [options]`. Operators' mistakes (unknown command or option, bad port, empty
 * password) get one line and the usage, exit 2; an invalid config exits 1 with every issue. Only a
 * bug in Portcullis itself prints a stack.
 */
const COMMANDS: readonly Command[] = [startCommand, reloadCommand, checkConfigCommand, hashSecretCommand, hashPasswordCommand, methodsCommand, policyCommand, appCommand, vendorCommand, keysCommand, auditCommand];

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

export async function runCli(argv: string[], io: Omit<CommandContext, "values" | "positionals">): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    (name === undefined ? io.stderr : io.stdout).write(overview());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`portcullis: unknown command ${JSON.stringify(name)}\n\n${overview()}`);
    return 2;
  }
  try {
    const { values, positionals } = parse(command, rest);
    if (values.help) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await command.run({ ...io, values, positionals });
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr.write(`portcullis ${command.name}: ${error.message}\n`);
    if (error.showUsage) io.stderr.write(`usage: ${commandUsage(command)}\n`);
    return error.exitCode;
  }
}

/**
 * Generated ids (a key's kid, a token's jti, a session's sid) are base64url and may begin with "-", which
 * parseArgs would take for a cluster of short options. The only short option is -h, so an argument of a
 * single dash and two or more characters can only be such an id: it is held aside while the options are
 * parsed and put back where it stood.
 */
const DASHED_ID = /^-[^-]./;

function parse(command: Command, rawArgs: string[]) {
  const held = new Map<string, string>();
  const terminator = rawArgs.indexOf("--");
  const args = rawArgs.map((arg, i) => {
    if ((terminator !== -1 && i > terminator) || !DASHED_ID.test(arg)) return arg;
    const placeholder = `\u0000${held.size}`;
    held.set(placeholder, arg);
    return placeholder;
  });
  const restore = (value: unknown) => (typeof value === "string" ? (held.get(value) ?? value) : value);
  const options: ParseArgsConfig["options"] = { ...HELP_OPTION };
  for (const [key, option] of Object.entries(command.options)) {
    options[key] = option.short === undefined ? { type: option.type } : { type: option.type, short: option.short };
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes; their first sentence is the useful part.
    throw new CliError((error as Error).message.split(". ")[0]!, { showUsage: true });
  }
  const max = command.positionals?.max ?? 0;
  if (parsed.positionals.length > max) {
    throw new CliError(`unexpected argument ${JSON.stringify(parsed.positionals[max])}`, { showUsage: true });
  }
  const values = Object.fromEntries(Object.entries(parsed.values).map(([key, value]) => [key, restore(value)]));
  return { values, positionals: parsed.positionals.map((p) => restore(p) as string) } as { values: CommandContext["values"]; positionals: string[] };
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: portcullis <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nRun "portcullis <command> --help" for a command's options.\n`;
}

function commandHelp(command: Command): string {
  const options = Object.entries(command.options).map(([key, option]) => {
    const flag = `--${key}${option.type === "string" ? ` ${option.valueName ?? "VALUE"}` : ""}`;
    return `  ${flag.padEnd(16)}  ${option.description}`;
  });
  const body = options.length > 0 ? `\noptions:\n${options.join("\n")}\n` : "";
  return `usage: ${commandUsage(command)}\n\n${command.summary}\n${body}`;
}
