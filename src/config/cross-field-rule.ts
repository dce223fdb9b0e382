import type { ConfigData, ConfigFileName } from "./config-data.ts";
import type { IssueDraft } from "./issue-draft.ts";

export type { ConfigData, ConfigFileName };

/**
 * A check the schema cannot express (uniqueness, references between files, key material). It runs
 * only when every file it `needs` passed the schema, so it may trust the generated types.
 * `description` is one sentence for docs/configuration.md.
 */
export interface CrossFieldRule {
  file: ConfigFileName;
  needs: readonly ConfigFileName[];
  description: string;
  check(config: ConfigData): IssueDraft[];
}
