import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { LANGS, type Lang } from "../i18n/lang.ts";
import { ViewSetupError } from "./view-setup-error.ts";

/**
 * The UI strings: one YAML file per language in views/i18n/<lang>.yaml, flat dotted keys to plain
 * text. `{name}` marks a value filled in at render time. Every language must have exactly the same
 * keys with the same placeholders; anything else is a start-up error naming file and key.
 * Strings are plain text: the whole result is HTML-escaped where it is used.
 */
export interface Translations {
  /** Every key (the same in all languages), sorted. */
  readonly keys: readonly string[];
  has(key: string): boolean;
  /** The placeholder names of a key, sorted (the same in all languages). */
  placeholders(key: string): readonly string[];
  /** The text of a key with its placeholders filled; throws on an unknown key or a placeholder without a value. */
  translate(lang: Lang, key: string, params?: Readonly<Record<string, unknown>>): string;
}

const KEY_PATTERN = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;
const PLACEHOLDER = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

/** More UI strings from another folder (a factor plugin's `i18n/`), their keys under `prefix.`. */
export interface StringSource {
  dir: string;
  prefix: string;
}

export function loadTranslations(i18nDir: string, more: readonly StringSource[] = []): Translations {
  const problems: string[] = [];
  const tables = new Map<Lang, Map<string, string>>();
  for (const lang of LANGS) tables.set(lang, readTable(join(i18nDir, `${lang}.yaml`), problems));
  for (const { dir, prefix } of more) {
    for (const lang of LANGS) {
      const table = tables.get(lang)!;
      for (const [key, text] of readTable(join(dir, `${lang}.yaml`), problems)) {
        const full = `${prefix}.${key}`;
        if (table.has(full)) problems.push(`${join(dir, `${lang}.yaml`)}: key "${key}" is already defined as "${full}"`);
        table.set(full, text);
      }
    }
  }

  const reference = tables.get("en")!;
  const allKeys = new Set<string>();
  for (const table of tables.values()) for (const key of table.keys()) allKeys.add(key);
  const keys = [...allKeys].sort();
  const placeholderSets = new Map<string, readonly string[]>();
  for (const key of keys) {
    for (const lang of LANGS) {
      if (!tables.get(lang)!.has(key)) problems.push(`${lang}.yaml: missing key "${key}"`);
    }
    const expected = placeholdersOf(reference.get(key) ?? "");
    placeholderSets.set(key, expected);
    for (const lang of LANGS) {
      const text = tables.get(lang)!.get(key);
      if (text === undefined) continue;
      const found = placeholdersOf(text);
      if (found.join(",") !== expected.join(",")) {
        problems.push(`${lang}.yaml: key "${key}" has placeholders {${found.join("}, {")}} but en.yaml has {${expected.join("}, {")}}`);
      }
    }
  }
  if (problems.length > 0) throw new ViewSetupError(problems);

  return {
    keys,
    has: (key) => reference.has(key),
    placeholders: (key) => placeholderSets.get(key) ?? [],
    translate(lang, key, params = {}) {
      const text = tables.get(lang)?.get(key);
      if (text === undefined) throw new Error(`no UI string "${key}" for language "${lang}"`);
      return text.replace(PLACEHOLDER, (_match, name: string) => {
        if (!Object.hasOwn(params, name)) throw new Error(`UI string "${key}" needs a value for {${name}}`);
        const value = params[name];
        return value === undefined || value === null ? "" : String(value);
      });
    },
  };
}

function readTable(file: string, problems: string[]): Map<string, string> {
  const table = new Map<string, string>();
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(file, "utf8"), { uniqueKeys: true });
  } catch (error) {
    problems.push(`${file}: ${(error as Error).message}`);
    return table;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    problems.push(`${file}: expected a mapping of dotted keys to strings`);
    return table;
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (!KEY_PATTERN.test(key)) problems.push(`${file}: key "${key}" is not a flat dotted key (a.b, lowercase)`);
    else if (typeof value !== "string" || value.trim() === "") problems.push(`${file}: key "${key}" must be a non-empty string`);
    else table.set(key, value);
  }
  return table;
}

function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))].sort();
}
