import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { buildConfigIssue } from "./build-config-issue.ts";
import { ConfigError, type ConfigIssue } from "../errors/config-error.ts";
import { CORE_CONFIG_FILES, type ConfigFileEntry, type PlugInConfigFile } from "./config-files.ts";
import { readConfigSource, type ConfigSource } from "./config-source.ts";
import type { ConfigData, ConfigFileName } from "./cross-field-rule.ts";
import { crossFieldRules } from "./cross-field-rules.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { normaliseConfig } from "./normalise-config.ts";
import { resolveReferences } from "./resolve-references.ts";
import { validateSchema } from "./schema-validator.ts";

export type { ConfigData };

/** The whole configuration, validated, with defaults filled in and references resolved. */
export interface LoadedConfig extends ConfigData {
  /** Absolute path of the directory the files were read from. */
  dir: string;
  /** The installed plug-ins' files it was read with (a reload reads the same ones). */
  plugInFiles: readonly PlugInConfigFile[];
}

/** Every file a configuration is read from, in order: the core's, then its plug-ins'. */
export function configFilesOf(config: Pick<LoadedConfig, "plugInFiles">): readonly ConfigFileEntry[] {
  return [...CORE_CONFIG_FILES, ...config.plugInFiles];
}

/**
 * Reads the core's files (provider.yaml, clients.yaml, …) and the installed plug-ins' files the
 * composition root hands over (`plugInFiles`, from their manifests) from `dir`. Per file: parse (keeping
 * positions), resolve ${env:…}/${file:…}, validate against the schema (filling defaults); then the
 * cross-field rules. Every issue of every stage and file is collected and thrown as one ConfigError,
 * so a broken config is fixed in one pass rather than one error per restart.
 */
export async function loadConfig(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  plugInFiles: readonly PlugInConfigFile[] = [],
): Promise<LoadedConfig> {
  const configDir = resolve(dir);
  if (!(await isDirectory(configDir))) {
    throw new ConfigError([{ file: dir, path: "", message: "configuration directory not found" }]);
  }
  const sources = new Map<ConfigFileName, ConfigSource>();
  const drafts: IssueDraft[] = [];
  const data: Partial<Record<ConfigFileName, unknown>> = {};
  const schemaValid = new Set<ConfigFileName>();

  const files = configFilesOf({ plugInFiles });
  const read = await Promise.all(files.map((entry) => readConfigSource(configDir, entry)));
  for (const { source, issues } of read) {
    sources.set(source.name, source);
    drafts.push(...issues);
    if (!source.doc || issues.length > 0) continue;
    const fileDrafts = checkFile(source, files.find((entry) => entry.name === source.name)!, configDir, env, data);
    drafts.push(...fileDrafts);
    if (fileDrafts.length === 0) schemaValid.add(source.name);
  }
  drafts.push(
    ...crossFieldRules(
      data as unknown as ConfigData,
      schemaValid,
      plugInFiles.flatMap((file) => file.rules),
    ),
  );

  if (drafts.length > 0) {
    throw new ConfigError(
      sortIssues(
        drafts.map((draft) => buildConfigIssue(sources.get(draft.file)!, draft)),
        files,
      ),
    );
  }
  const config = data as unknown as ConfigData;
  normaliseConfig(config);
  return { dir: configDir, plugInFiles, ...config };
}

/** References, then the schema, for one syntactically valid file; stores its value in `data`. */
function checkFile(
  source: ConfigSource,
  entry: ConfigFileEntry,
  configDir: string,
  env: NodeJS.ProcessEnv,
  data: Partial<Record<ConfigFileName, unknown>>,
): IssueDraft[] {
  if (source.doc!.contents === null) return [{ file: source.name, at: [], message: "file is empty" }];
  const referenceIssues = resolveReferences(source, configDir, env);
  let value: unknown;
  try {
    value = source.doc!.toJS();
  } catch (error) {
    // e.g. yaml's alias-count guard against "billion laughs" documents.
    return [...referenceIssues, { file: source.name, at: [], message: (error as Error).message }];
  }
  data[source.name] = value;
  entry.beforeSchema?.(value);
  // A value whose reference failed already has its issue; its schema complaint would only repeat it.
  const unresolved = new Set(referenceIssues.map((issue) => JSON.stringify(issue.at)));
  const schemaIssues = validateSchema(entry, value).filter((issue) => !unresolved.has(JSON.stringify(issue.at)));
  return [...referenceIssues, ...schemaIssues];
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/** File order, then line and column, so the list reads top to bottom like the files. */
function sortIssues(issues: ConfigIssue[], files: readonly ConfigFileEntry[]): ConfigIssue[] {
  const fileOrder = (file: string) => files.findIndex((entry) => file.endsWith(entry.file));
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        fileOrder(a.issue.file) - fileOrder(b.issue.file) ||
        (a.issue.line ?? 0) - (b.issue.line ?? 0) ||
        (a.issue.column ?? 0) - (b.issue.column ?? 0) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
}
