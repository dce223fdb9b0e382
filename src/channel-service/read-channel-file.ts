import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { UNIQUE_CHANNELS_RULE } from "../config/channel-rules.ts";
import type { ConfigData } from "../config/cross-field-rule.ts";
import type { IssueDraft } from "../config/issue-draft.ts";
import { keyPath } from "../config/key-path.ts";
import type { ChannelConfig } from "../config/types.generated.ts";
import { validateSchema } from "../config/schema-validator.ts";

/**
 * The service's channels: a file in the format of the provider's channels.yaml (schemas/channels.schema.json),
 * checked by the same schema and the rules that need no other file (unique ids, one role per member).
 * Members are not checked against users.yaml: the service is another system with its own accounts.
 * Throws an Error listing every problem.
 */
export async function readChannelFile(path: string): Promise<ChannelConfig[]> {
  const value: unknown = parse(await readFile(path, "utf8")) ?? {};
  let issues = validateSchema("channels", value);
  if (issues.length === 0) issues = UNIQUE_CHANNELS_RULE.check({ channels: value } as unknown as ConfigData);
  const problems = issues.map(describe);
  if (problems.length > 0) throw new Error(`${path}: ${problems.join("; ")}`);
  const { channels } = value as ConfigData["channels"];
  // A service with no channels answers every user "none": most likely it was given the provider's file
  // after that was switched to directory.kind http (which must list none). Said at start, not at a login.
  if (channels.length === 0) throw new Error(`${path}: lists no channels (the service serves the channels of this file: give it its own list, not a provider's channels.yaml with directory.kind http)`);
  return channels;
}

/** `channels[0].icon: must match …`, like the provider's config messages (without line numbers). */
const describe = (issue: IssueDraft) => `${keyPath(issue.at) || "(file)"}: ${issue.message}`;
