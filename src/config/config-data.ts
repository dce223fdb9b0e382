import type {
  ChannelsFile,
  ClientsFile,
  CustomLoginFile,
  DirectoryFile,
  LoginFile,
  ProviderFile,
  ScopesFile,
  UsersFile,
} from "./types.generated.ts";

/** The parsed, schema-valid, defaults-filled content of the config files. */
export interface ConfigData {
  provider: ProviderFile;
  clients: ClientsFile;
  scopes: ScopesFile;
  users: UsersFile;
  directory: DirectoryFile;
  login: LoginFile;
  channels: ChannelsFile;
  /** An extension's file: present when the composition root loaded its file (it loads every installed one). */
  custom_login: CustomLoginFile;
}

/** A configuration file's name: its key in ConfigData (a plug-in's file may have one the core's types do not list). */
export type ConfigFileName = keyof ConfigData | (string & {});
