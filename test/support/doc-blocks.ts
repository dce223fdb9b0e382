import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * The shell commands the README and docs/*.md show, read from their code blocks: every line of a
 * ```sh block (a trailing `\` joins the next line; full-line comments are prose), or, in a block with a
 * shell prompt (any block), only the lines that start with `$ `, the lines after each being the output
 * it shows. A block the docs test cannot run is preceded by `<!-- not run: why -->`.
 */

export const REPO_ROOT = resolve(import.meta.dirname, "../..");

export interface DocCommand {
  /** Where it starts: "docs/stores.md:12". */
  where: string;
  /** The command as written, continuation lines joined, its trailing comment removed. */
  text: string;
  /** The trailing `# …` comment, if any. */
  comment?: string;
  /** In a prompt block, the output shown under the command (possibly empty). */
  shownOutput?: string[];
}

export interface DocBlock {
  file: string;
  where: string;
  lang: string;
  /** The reason of a `<!-- not run: … -->` marker before the block. */
  notRun?: string;
  commands: DocCommand[];
}

const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/;

/** README.md and every docs/*.md, as paths relative to the repository root. */
export function docFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

export function readDocBlocks(files = docFiles()): DocBlock[] {
  return files.flatMap((file) => blocksOf(file, readFileSync(join(REPO_ROOT, file), "utf8")));
}

/**
 * The commands the prose shows in inline code (`npx portcullis app code`): checked as written only,
 * since they are fragments of a walkthrough (placeholders, elisions).
 */
export function readInlineCommands(files = docFiles()): DocCommand[] {
  return files.flatMap((file) => {
    const commands: DocCommand[] = [];
    let fence: string | undefined;
    readFileSync(join(REPO_ROOT, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        const open = /^(`{3,}|~{3,})/.exec(line);
        if (fence) {
          if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && line.trim() === open[1]) fence = undefined;
          return;
        }
        if (open) {
          fence = open[1]!;
          return;
        }
        for (const span of line.matchAll(/`((?:npx portcullis|portcullis|npm run|npm start|npm test|node) [^`]*|npm start|npm test)`/g)) {
          commands.push({ where: `${file}:${i + 1}`, text: span[1]! });
        }
      });
    return commands;
  });
}

export function blocksOf(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^${fence[0]}{${fence.length},}\\s*$`).test(lines[end]!)) end++;
    const body = lines.slice(i + 1, end);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const marker = before >= 0 ? NOT_RUN.exec(lines[before]!.trim()) : null;
    const lang = open[2]!;
    const commands = commandsOf(file, i + 2, body, SHELL_LANGS.has(lang));
    if (commands.length > 0) blocks.push({ file, where: `${file}:${i + 1}`, lang, ...(marker && { notRun: marker[1]! }), commands });
    i = end;
  }
  return blocks;
}

/** The commands of one block whose first body line is line `firstLine` of `file`. */
function commandsOf(file: string, firstLine: number, body: string[], shell: boolean): DocCommand[] {
  const prompted = body.some((line) => line.startsWith("$ "));
  if (!shell && !prompted) return [];
  const commands: DocCommand[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (prompted ? !line.startsWith("$ ") : line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const start = i;
    let text = prompted ? line.slice(2) : line;
    while (text.endsWith("\\") && i + 1 < body.length) text = `${text.slice(0, -1)} ${body[++i]!.trim()}`;
    const { command, comment } = splitComment(text);
    const entry: DocCommand = { where: `${file}:${firstLine + start}`, text: command, ...(comment !== undefined && { comment }) };
    if (prompted) {
      const output: string[] = [];
      while (i + 1 < body.length && !body[i + 1]!.startsWith("$ ")) output.push(body[++i]!);
      entry.shownOutput = output;
    }
    commands.push(entry);
  }
  return commands;
}

/** A command and its trailing comment: a `#` outside quotes that starts a word. */
export function splitComment(text: string): { command: string; comment?: string } {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!)))
      return { command: text.slice(0, i).trimEnd(), comment: text.slice(i + 1).trim() };
  }
  return { command: text.trimEnd() };
}

/**
 * The simple commands of a command line, as words with quotes removed: command substitutions `$(…)`
 * become commands of their own (their place a placeholder word), and pipes, `&&`, `||` and `;`
 * separate the rest. Leading `NAME=value` assignments are dropped. Enough shell for the docs' lines.
 */
export function simpleCommands(line: string): string[][] {
  const substitutions: string[] = [];
  const outer = extractSubstitutions(line, substitutions);
  const commands = splitOperators(outer)
    .map(words)
    .filter((w) => w.length > 0);
  const result = commands.map((w) => {
    let first = 0;
    while (first < w.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[first]!)) first++;
    return w.slice(first);
  });
  return [...result.filter((w) => w.length > 0), ...substitutions.flatMap(simpleCommands)];
}

function extractSubstitutions(line: string, into: string[]): string {
  let out = "";
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      out += c;
      continue;
    }
    if (c === "$" && line[i + 1] === "(") {
      let depth = 1;
      let inner: string | undefined;
      let j = i + 2;
      for (; j < line.length; j++) {
        const d = line[j]!;
        if (inner !== undefined) {
          if (d === inner) inner = undefined;
        } else if (d === "'" || d === '"') inner = d;
        else if (d === "(") depth++;
        else if (d === ")" && --depth === 0) break;
      }
      into.push(line.slice(i + 2, j));
      out += "SUBSTITUTION";
      i = j;
      continue;
    }
    if (c === '"') quote = quote === '"' ? undefined : '"';
    else if (c === "'" && !quote) quote = "'";
    else if (c === "\\") {
      out += c + (line[i + 1] ?? "");
      i++;
      continue;
    }
    out += c;
  }
  return out;
}

function splitOperators(line: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === "\\") {
      current += c + (line[i + 1] ?? "");
      i++;
    } else if (c === "|" || c === ";" || (c === "&" && line[i + 1] === "&")) {
      parts.push(current);
      current = "";
      if (line[i + 1] === c) i++;
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function words(segment: string): string[] {
  const result: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && /["\\$`]/.test(segment[i + 1] ?? "")) current += segment[++i]!;
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      current ??= "";
    } else if (c === "\\") current = (current ?? "") + (segment[++i] ?? "");
    else if (/\s/.test(c)) {
      if (current !== undefined) result.push(current);
      current = undefined;
    } else current = (current ?? "") + c;
  }
  if (current !== undefined) result.push(current);
  return result;
}
