import type { ConfigFileName } from "./config-data.ts";
import type { KeyPath } from "./key-path.ts";
import type { Position } from "./yaml-position.ts";

/**
 * An issue as the checks report it: which file, which key path, what is wrong, and the raw value.
 * Checks know nothing about lines, display paths or secrets; `buildConfigIssue` adds the position
 * and decides whether the value may be shown.
 */
export interface IssueDraft {
  file: ConfigFileName;
  at: KeyPath;
  message: string;
  value?: unknown;
  /** Point at the key of the last segment rather than its value (unknown keys). */
  pointAtKey?: boolean;
  /** A known position (YAML syntax errors), or "none" for file-level issues such as a missing file. */
  position?: Position | "none";
}
