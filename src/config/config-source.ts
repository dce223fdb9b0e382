import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { LineCounter, parseDocument, type Document } from "yaml";
import type { ConfigFileEntry } from "./config-files.ts";
import type { ConfigFileName } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";

/**
 * One config file as read from disk: the YAML document (kept, not just its JS value, because every
 * message needs the line and column of a node) and the bookkeeping the issue builder needs.
 */
export interface ConfigSource {
  name: ConfigFileName;
  /** Path as shown in messages: relative to the working directory when inside it, else absolute. */
  displayPath: string;
  /** Undefined when the file could not be read. */
  doc: Document | undefined;
  lineCounter: LineCounter;
  /** Key paths (JSON of the segments) whose value came from ${env:…}/${file:…}, mapped to the source text. */
  references: Map<string, string>;
}

/** Reads and parses one file. A missing file or a YAML syntax error becomes an issue, never a throw. */
export async function readConfigSource(dir: string, entry: ConfigFileEntry): Promise<{ source: ConfigSource; issues: IssueDraft[] }> {
  const path = join(dir, entry.file);
  const source: ConfigSource = {
    name: entry.name,
    displayPath: displayPath(path),
    doc: undefined,
    lineCounter: new LineCounter(),
    references: new Map(),
  };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && entry.optional) {
      source.doc = parseDocument("{}", { lineCounter: source.lineCounter });
      return { source, issues: [] };
    }
    const message = code === "ENOENT" ? "file not found" : `cannot read file (${code ?? "unknown error"})`;
    return { source, issues: [{ file: entry.name, at: [], message, position: "none" }] };
  }
  // prettyErrors off: the pretty form embeds a source excerpt, which could show a secret. We compute
  // the line and column ourselves from the error offset.
  source.doc = parseDocument(text, { lineCounter: source.lineCounter, prettyErrors: false });
  const issues: IssueDraft[] = source.doc.errors.map((error) => {
    const { line, col } = source.lineCounter.linePos(error.pos[0]);
    return { file: entry.name, at: [], message: `YAML syntax error: ${error.message}`, position: { line, column: col } };
  });
  return { source, issues };
}

function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
