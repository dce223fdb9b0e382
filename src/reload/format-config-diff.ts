import { parse } from "yaml";
import type { ConfigFileEntry } from "../config/config-files.ts";
import { diffConfig, type ConfigChange } from "./config-diff.ts";
import { needsRestart } from "./restart-only-changes.ts";

/** Keys whose values are never printed, even hashed or as a reference. */
const SECRET_KEY = /secret|password|private|pem|token|key$/i;
/** Lifetimes are durations, also those named after a token (`lifetimes.access_token`): shown. */
const LIFETIME = /(^|\.)lifetimes\.[^.]+$/;
const MAX_SHOWN = 60;

/**
 * What a reload would change, file by file, from the running copy to the files on disk (each a map of
 * file name → YAML text), as readable lines: `~ clients[demo-web].name: "Demo" → "Demo 2"`, `+ clients[new-app]`,
 * `- login_types.Old`. A change a reload would refuse is marked `(restart needed)`. Empty when nothing
 * changed. `files`: the configuration's files in order (configFilesOf).
 */
export function formatConfigDiff(
  running: ReadonlyMap<string, string>,
  next: ReadonlyMap<string, string>,
  files: readonly ConfigFileEntry[],
): string[] {
  const lines: string[] = [];
  for (const { file } of files) {
    const changes = diffConfig(parseOrEmpty(running.get(file)), parseOrEmpty(next.get(file)));
    if (changes.length === 0) continue;
    lines.push(
      file,
      ...changes.map((change) => `  ${describeChange(change)}${needsRestart(file, change.path) ? "  (restart needed)" : ""}`),
    );
  }
  return lines;
}

function describeChange(change: ConfigChange): string {
  const path = change.path.replace(/\[[^\]]*\]$/, "");
  const secret = SECRET_KEY.test(path) && !LIFETIME.test(path);
  const shown = (value: unknown) => (secret ? "(hidden)" : show(value));
  if (change.kind === "added") return `+ ${change.path || "(file)"}${isScalarish(change.after) ? `: ${shown(change.after)}` : ""}`;
  if (change.kind === "removed") return `- ${change.path || "(file)"}`;
  return `~ ${change.path}: ${shown(change.before)} → ${shown(change.after)}`;
}

const isScalarish = (value: unknown) =>
  value === null || typeof value !== "object" || (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object"));

/** Scalars as JSON, lists of scalars as [a, b], anything else by its shape; long text cut. */
function show(value: unknown): string {
  if (value === undefined) return "(unset)";
  const text =
    Array.isArray(value) && isScalarish(value)
      ? `[${value.map((v) => String(v)).join(", ")}]`
      : value !== null && typeof value === "object"
        ? Array.isArray(value)
          ? "a list"
          : "a map"
        : JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

/** A file's value as written (references unresolved); an absent or unparsable file as empty (check-config reports why). */
function parseOrEmpty(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return parse(text) ?? {};
  } catch {
    return {};
  }
}
