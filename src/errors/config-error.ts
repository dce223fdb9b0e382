/**
 * One problem in the configuration. `file` is the path as the operator would type it, `path` the
 * readable key path, `value` the offending value when it is safe to show (never a secret, never the
 * result of an ${env:…}/${file:…} reference).
 */
export interface ConfigIssue {
  file: string;
  line?: number;
  column?: number;
  path: string;
  message: string;
  value?: unknown;
}

/** Thrown once per load with every issue of every file, so an operator fixes them all in one pass. */
export class ConfigError extends Error {
  static readonly code: string = "ERR_CONFIG_INVALID";
  readonly code: string = "ERR_CONFIG_INVALID";
  override readonly name = "ConfigError";
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    super(issues.map(formatConfigIssue).join("\n"));
    this.issues = issues;
  }
}

/** `config/clients.yaml:12:7 clients[0].redirect_uris[1]: must not contain a fragment (got "http://x/cb#a")` */
export function formatConfigIssue(issue: ConfigIssue): string {
  const where = [issue.file, issue.line, issue.column].filter((part) => part !== undefined).join(":");
  const got = issue.value === undefined ? "" : ` (got ${describeValue(issue.value)})`;
  // File-level issues (missing file, YAML syntax) have no key path.
  const prefix = issue.path === "" ? `${where}:` : `${where} ${issue.path}:`;
  return `${prefix} ${issue.message}${got}`;
}

const MAX_SHOWN = 80;

/** Short, one-line rendering of a value: strings quoted and cut, containers named rather than dumped. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const cut = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return JSON.stringify(cut);
  }
  if (Array.isArray(value)) return "a list";
  if (value !== null && typeof value === "object") return "a map";
  return String(value);
}
