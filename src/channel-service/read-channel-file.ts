import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { UNIQUE_CHANNELS_RULE } from "../config/channel-rules.ts";
import type { ConfigData } from "../config/cross-field-rule.ts";
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
  const problems = validateSchema("channels", value).map((issue) => `${issue.at.join(".") || "(file)"}: ${issue.message}`);
  if (problems.length === 0) {
    const issues = UNIQUE_CHANNELS_RULE.check({ channels: value } as unknown as ConfigData);
    problems.push(...issues.map((issue) => `${issue.at.join(".")}: ${issue.message}`));
  }
  if (problems.length > 0) throw new Error(`${path}: ${problems.join("; ")}`);
  return (value as ConfigData["channels"]).channels;
}
