import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.ts";
import {
  docFiles,
  readDocBlocks,
  readInlineCommands,
  REPO_ROOT,
  simpleCommands,
  type DocBlock,
  type DocCommand,
} from "../support/doc-blocks.ts";
import { startDocShell, type CommandResult, type DocShell } from "../support/doc-shell.ts";
import { unavailable } from "../support/require-service.ts";
import { findOnPath } from "../support/services.ts";
import { copyConfig, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Every command the README and docs/*.md show must still work. The commands are read from the docs'
 * code blocks (test/support/doc-blocks.ts says which lines count), and
 *
 * 1. every one is checked as written, and so is every command in the prose's inline code
 *    (`npx portcullis app code`): `portcullis …` / `npx portcullis …` / `npm run cli -- …` name a
 *    command of the CLI's command table (src/cli/run-cli.ts), and a subcommand and options its usage
 *    lists; `npm run X` a script of package.json; `node FILE` and `bash FILE` a file; every path into
 *    the repository a command names exists (var/, the data directory a start creates, excepted);
 * 2. every block not marked `<!-- not run: why -->` runs for real, in bash, against a test provider on
 *    the demo configuration (the docs' `http://localhost:3000` becomes its address), the CLI on a copy
 *    of that configuration with a fresh data directory per block (test/support/doc-shell.ts): each
 *    command must exit 0 (or 1 where the block shows the output of a refusal), print the output lines
 *    the doc shows under it (`...` or `…` stand for anything), and, where a trailing comment shows a
 *    JSON answer (`# {"active":false}`), print that.
 *
 * A block this test cannot run (a browser login's code, a server that runs until stopped, root, Docker)
 * gets the marker in the doc; a block running another program than RUNNABLE fails here until it has one.
 * The links of the same pages are checked below, and docs/README.md's index against the files.
 */

const RUNNABLE = new Set(["curl", "portcullis", "npx", "node", "npm"]);

const blocks = readDocBlocks();
const curl = findOnPath("curl");
const usesCurl = (block: DocBlock) => block.commands.some((command) => simpleCommands(command.text).some((words) => words[0] === "curl"));
const packageScripts = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

interface CliCommand {
  options: Set<string>;
  /** The options that take a value (`[--config DIR]`). */
  valued: Set<string>;
  /** The first positional's choices, when the usage names them (`list|rotate|retire`, `sign`). */
  subcommands?: Set<string>;
}

/** The command names of the CLI's command table, read from its source. */
function registeredCommands(): string[] {
  const source = readFileSync(join(REPO_ROOT, "src/cli/run-cli.ts"), "utf8");
  const table = /const COMMANDS = \{([\s\S]*?)\n\}/.exec(source)![1]!;
  return [...table.matchAll(/^\s+"?([a-z][a-z-]*)"?: \(\) => import\("\.\/commands\/[a-z-]+\.ts"\)/gm)].map((m) => m[1]!);
}

async function cli(args: string[]) {
  const out = { stdout: "", stderr: "" };
  const sink = (key: keyof typeof out) => {
    const stream = new PassThrough();
    stream.on("data", (chunk) => (out[key] += chunk));
    return stream;
  };
  const code = await runCli(args, { stdin: process.stdin, stdout: sink("stdout"), stderr: sink("stderr"), env: {} });
  return { code, ...out };
}

/** Each registered command's options and subcommands, from its own `--help`. */
async function cliTable(): Promise<Map<string, CliCommand>> {
  const table = new Map<string, CliCommand>();
  for (const name of registeredCommands()) {
    const help = await cli([name, "--help"]);
    const usage = /^usage: portcullis (\S+)(.*)$/m.exec(help.stdout);
    expect(usage?.[1], `portcullis ${name} --help`).toBe(name);
    const options = new Set<string>(["help"]);
    const valued = new Set<string>();
    for (const option of usage![2]!.matchAll(/\[--([\w-]+)( [^\]]+)?\]/g)) {
      options.add(option[1]!);
      if (option[2]) valued.add(option[1]!);
    }
    const first =
      usage![2]!
        .replace(/\[--[^\]]+\]/g, "")
        .trim()
        .split(/\s+/)[0] ?? "";
    const subcommands = /^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(first) ? new Set(first.split("|")) : undefined;
    table.set(name, { options, valued, ...(subcommands && { subcommands }) });
  }
  return table;
}

/** A word that names a path into the repository: it starts with one of the top folders. */
function repoPath(word: string): string | undefined {
  const path = word.replace(/^\.\//, "");
  return /^(config|docs|src|test|bench|bin|scripts|schemas|flows|views|\.ci|var)(\/[^\s:]*)?$/.test(path) ? path : undefined;
}

function checkCli(args: string[], table: Map<string, CliCommand>): string[] {
  const [name, ...rest] = args;
  if (name === undefined || ["--help", "-h", "help"].includes(name)) return [];
  const command = table.get(name);
  if (!command) return [`portcullis ${name}: no such command (src/cli/run-cli.ts has ${[...table.keys()].join(", ")})`];
  const problems: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--") {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const option = arg.slice(2).split("=")[0]!;
      if (!command.options.has(option))
        problems.push(`portcullis ${name}: no option --${option} (it has ${[...command.options].map((o) => `--${o}`).join(", ")})`);
      if (command.valued.has(option) && !arg.includes("=")) i++;
    } else if (arg !== "-h") positionals.push(arg);
  }
  // Prose may name several at once: `portcullis keys list|rotate|retire`.
  if (command.subcommands && positionals[0] !== undefined && !positionals[0].split("|").every((sub) => command.subcommands!.has(sub))) {
    problems.push(`portcullis ${name} ${positionals[0]}: no such subcommand (${[...command.subcommands].join(", ")})`);
  }
  return problems;
}

function staticProblems(command: DocCommand, table: Map<string, CliCommand>): string[] {
  const problems: string[] = [];
  for (const raw of simpleCommands(command.text)) {
    let words = raw;
    if (words[0] === "npx") {
      if (words[1] !== "portcullis") problems.push(`npx ${words[1]}: only npx portcullis is expected`);
      words = ["portcullis", ...words.slice(2)];
    }
    if (words[0] === "npm" && words[1] === "run" && words[2] === "cli") words = ["portcullis", ...words.slice(words[3] === "--" ? 4 : 3)];
    const [program, ...args] = words;
    if (program === "portcullis") problems.push(...checkCli(args, table));
    else if (program === "npm") {
      const [verb, script] = args;
      if (verb === "run") {
        if (script === undefined || !Object.hasOwn(packageScripts, script))
          problems.push(`npm run ${script}: no such script in package.json`);
      } else if (verb === "start" || verb === "test") {
        if (!Object.hasOwn(packageScripts, verb)) problems.push(`npm ${verb}: no such script in package.json`);
      } else if (verb !== "install" && verb !== "ci") problems.push(`npm ${verb}: not a command the docs are expected to show`);
    } else if ((program === "node" || program === "bash") && args[0] !== undefined && !args[0].startsWith("-")) {
      if (!existsSync(join(REPO_ROOT, args[0]))) problems.push(`${program} ${args[0]}: no such file`);
    }
    // A copy's destination is made by the copy.
    const named = program === "cp" ? args.slice(0, -1) : args;
    for (const word of named) {
      const path = repoPath(word);
      if (path && !path.startsWith("var") && !existsSync(join(REPO_ROOT, path))) problems.push(`${path}: no such file or folder`);
    }
  }
  return problems.map((problem) => `${command.where}: ${problem}`);
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The lines the doc shows under a command, each found in the output, in order; `...` and `…` match anything. */
function missingShownLines(shown: string[], actual: string): string[] {
  const lines = actual.split("\n").map((line) => line.trimEnd());
  let at = 0;
  const missing: string[] = [];
  for (const line of shown.map((l) => l.trimEnd())) {
    if (line === "" || /^(\.\.\.|…)$/.test(line.trim())) continue;
    const pattern = new RegExp(
      `^${line
        .split(/\.\.\.|…/)
        .map(escapeRegExp)
        .join(".*")}$`,
    );
    const found = lines.findIndex((candidate, i) => i >= at && pattern.test(candidate));
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

function resultProblems(result: CommandResult): string[] {
  const { command, exitCode, stdout } = result;
  const shown = command.shownOutput?.filter((line) => line.trim() !== "") ?? [];
  const allowed = shown.length > 0 ? [0, 1] : [0];
  const problems: string[] = [];
  if (exitCode === undefined || !allowed.includes(exitCode))
    problems.push(`exited ${exitCode ?? "never"}, expected ${allowed.join(" or ")}`);
  if (/^\s+at .+:\d+:\d+\)?$/m.test(stdout)) problems.push("printed a stack trace");
  for (const line of missingShownLines(shown, stdout)) problems.push(`does not print the line the doc shows: ${line}`);
  if (command.comment?.startsWith("{")) {
    const pattern = new RegExp(command.comment.split("…").map(escapeRegExp).join("[\\s\\S]*"));
    if (!pattern.test(stdout)) problems.push(`does not answer what its comment shows: ${command.comment}`);
  }
  return problems.length === 0
    ? []
    : [`${command.where}: ${command.text}\n  ${problems.join("\n  ")}\n  output:\n${stdout.replace(/^/gm, "    ")}`];
}

describe("the commands the README and docs/ show", () => {
  it("are found: every doc's code blocks are read", () => {
    const files = new Set(blocks.map((block) => block.file));
    for (const file of ["README.md", "docs/demo-tour.md", "docs/login-policy.md", "docs/operations.md", "docs/deployment.md"])
      expect(files, file).toContain(file);
    expect(blocks.flatMap((block) => block.commands).length).toBeGreaterThan(40);
  });

  it("name real CLI commands and options, npm scripts and files", async () => {
    const table = await cliTable();
    // The overview lists exactly the table's commands.
    const overview = await cli(["--help"]);
    expect([...overview.stdout.matchAll(/^ {2}(\S+) {2,}\S/gm)].map((m) => m[1])).toEqual([...table.keys()]);
    const problems = blocks.flatMap((block) => block.commands.flatMap((command) => staticProblems(command, table)));
    expect(problems).toEqual([]);
  });

  it("in the prose's inline code name real CLI commands and options, npm scripts and files too", async () => {
    const table = await cliTable();
    const inline = readInlineCommands();
    expect(inline.length).toBeGreaterThan(40);
    expect(inline.flatMap((command) => staticProblems(command, table))).toEqual([]);
  });

  it("that are to run use only the programs this test runs, and the rest say why not", () => {
    const problems = blocks
      .filter((block) => block.notRun === undefined)
      .flatMap((block) =>
        block.commands.flatMap((command) =>
          simpleCommands(command.text)
            .map((words) => words[0]!)
            .filter((program) => !RUNNABLE.has(program))
            .map((program) => `${command.where}: ${program} — run it here, or mark the block <!-- not run: why -->`),
        ),
      );
    expect(problems).toEqual([]);
  });

  describe("run against a test provider", () => {
    let provider: TestProvider;
    let shell: DocShell;
    const temporary: string[] = [];

    beforeAll(async () => {
      // The CLI resolves its relative paths (`--config config`) from here, as from a shell in the checkout.
      if (process.cwd() !== REPO_ROOT) process.chdir(REPO_ROOT);
      provider = await startTestProvider();
      shell = await startDocShell(curl);
    });

    afterAll(async () => {
      await shell?.close();
      await provider?.close();
      for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
    });

    const runnable = blocks.filter((block) => block.notRun === undefined && (curl !== undefined || !usesCurl(block)));
    if (curl === undefined) unavailable("the docs' curl commands", "curl is not installed (apt-get install curl)");
    it.each(runnable.map((block): [string, DocBlock] => [block.where, block]))("%s", { timeout: 30_000 }, async (_where, block) => {
      // Each block starts from the demo as shipped: nothing enrolled by an earlier block.
      const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
      const configDir = copyConfig({ "provider.yaml": { data_dir: dataDir, "store.url": "embedded" } });
      temporary.push(dataDir, configDir);
      const results = await shell.run(block.commands, {
        configDir,
        rewrite: (text) => text.replaceAll("http://localhost:3000", provider.issuer),
      });
      expect(results.flatMap(resultProblems)).toEqual([]);
    });
  });
});

/** The text outside fenced code blocks, line by line (a heading or link inside a block is not one). */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const open = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && line.trim() === open[1]) fence = undefined;
      lines.push("");
    } else if (open) {
      fence = open[1]!;
      lines.push("");
    } else lines.push(line);
  }
  return lines;
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

describe("the README and docs/", () => {
  it("link only to files that exist, and to headings those pages have", () => {
    const problems: string[] = [];
    for (const file of docFiles()) {
      const markdown = readFileSync(join(REPO_ROOT, file), "utf8");
      prose(markdown).forEach((line, i) => {
        for (const link of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = link[1]!;
          if (/^[a-z]+:/.test(target)) continue;
          const [path, anchor] = target.split("#") as [string, string | undefined];
          const resolved = path === "" ? join(REPO_ROOT, file) : resolve(REPO_ROOT, dirname(file), path);
          // ../shared/ (SPEC.md, DESIGN.md) lies beside the repository, not in it.
          if (relative(REPO_ROOT, resolved).startsWith("..")) continue;
          if (!existsSync(resolved)) problems.push(`${file}:${i + 1}: ${target}: no such file`);
          else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(readFileSync(resolved, "utf8")).has(anchor)) {
            problems.push(`${file}:${i + 1}: ${target}: no such heading`);
          }
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it("docs/README.md indexes every page of docs/", () => {
    const index = readFileSync(join(REPO_ROOT, "docs/README.md"), "utf8");
    const pages = readdirSync(join(REPO_ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .concat(
        readdirSync(join(REPO_ROOT, "docs/deploy")).map((name) => `deploy/${name}`),
        ["diagrams/README.md"],
      );
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([]);
  });

  it("the README stays short: under 12 kB, with its table of contents", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    expect(statSync(join(REPO_ROOT, "README.md")).size).toBeLessThan(12 * 1024);
    for (const heading of anchors(readme)) if (heading !== "portcullis") expect(readme, heading).toContain(`](#${heading})`);
  });
});
