import type { ConfigFileName } from "./config-files.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { ChannelsFile, ClientsFile, CustomLoginFile, LoginFile, ProviderFile, ScopesFile, UsersFile } from "./types.generated.ts";

/** The parsed, schema-valid, defaults-filled content of the config files. */
export interface ConfigData {
  provider: ProviderFile;
  clients: ClientsFile;
  scopes: ScopesFile;
  users: UsersFile;
  login: LoginFile;
  channels: ChannelsFile;
  custom_login: CustomLoginFile;
}

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
