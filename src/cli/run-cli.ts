import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError } from "./support/cli-error.ts";
import { commandUsage, type Command, type CommandContext } from "./support/command.ts";

/**
 * Each command is loaded when it runs: its modules (stores, the flow runtime, the HTTP stack) are a
 * second of a process start, and `portcullis keys` needs none of what `portcullis start` loads. The
 * overview loads them all, for their summaries.
 */
const COMMANDS = {
  start: () => import("./commands/start.ts").then((m) => m.startCommand),
  reload: () => import("./commands/reload.ts").then((m) => m.reloadCommand),
  "check-config": () => import("./commands/check-config.ts").then((m) => m.checkConfigCommand),
  "hash-secret": () => import("./commands/hash-secret.ts").then((m) => m.hashSecretCommand),
  "hash-password": () => import("./commands/hash-password.ts").then((m) => m.hashPasswordCommand),
  methods: () => import("./commands/methods.ts").then((m) => m.methodsCommand),
  users: () => import("./commands/users.ts").then((m) => m.usersCommand),
  policy: () => import("./commands/policy.ts").then((m) => m.policyCommand),
  app: () => import("./commands/app.ts").then((m) => m.appCommand),
  vendor: () => import("./commands/vendor.ts").then((m) => m.vendorCommand),
  keys: () => import("./commands/keys.ts").then((m) => m.keysCommand),
  audit: () => import("./commands/audit.ts").then((m) => m.auditCommand),
} satisfies Record<string, () => Promise<Command>>;

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/**
 * `portcullis <command> [options]`. Operators' mistakes (unknown command or option, bad port, empty
 * password) get one line and the usage, exit 2; an invalid config exits 1 with every issue. Only a
 * bug in Portcullis itself prints a stack.
 */
export async function runCli(argv: string[], io: Omit<CommandContext, "values" | "positionals">): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    (name === undefined ? io.stderr : io.stdout).write(await overview());
    return name === undefined ? 2 : 0;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    io.stderr.write(`portcullis: unknown command ${JSON.stringify(name)}\n\n${await overview()}`);
    return 2;
  }
  const command = await COMMANDS[name as keyof typeof COMMANDS]();
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
  return { values, positionals: parsed.positionals.map((p) => restore(p) as string) } as {
    values: CommandContext["values"];
    positionals: string[];
  };
}

async function overview(): Promise<string> {
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
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
