import type { CommandOption } from "../support/command.ts";

/** The --config option, shared by every command that reads the configuration. */
export const CONFIG_OPTION: Record<"config", CommandOption> = {
  config: { type: "string", valueName: "DIR", description: "configuration directory (default: $PORTCULLIS_CONFIG, else ./config)" },
};
