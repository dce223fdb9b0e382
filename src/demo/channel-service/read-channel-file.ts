import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { UNIQUE_CHANNELS_RULE } from "../../config/channel-rules.ts";
import type { ConfigData } from "../../config/cross-field-rule.ts";
import type { IssueDraft } from "../../config/issue-draft.ts";
import { keyPath } from "../../config/key-path.ts";
import { resolveReferences } from "../../config/resolve-references.ts";
import type { ChannelConfig } from "../../config/types.generated.ts";
import { validateSchema } from "../../config/schema-validator.ts";
import { coreConfigFile } from "../../config/config-files.ts";

export interface ChannelFile {
  channels: ChannelConfig[];
  /** login_data.signing_key: the secret the selector page seals its data with and channelinfo checks it with. */
  loginDataKey: string;
}

/**
 * The service's channels and its login_data key: a file in the format of the provider's channels.yaml
 * (schemas/channels.schema.json), its ${env:…}/${file:…} references resolved as the provider resolves
 * them (a file path relative to this file's directory), checked by the same schema and the rules that
 * need no other file (unique ids, one role per member). Members are not checked against users.yaml: the
 * service is another system with its own accounts. Throws an Error listing every problem, never a secret.
 */
export async function readChannelFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<ChannelFile> {
  const doc = parseDocument(await readFile(path, "utf8"), { prettyErrors: false });
  // prettyErrors off: the pretty message quotes the lines around the error, which may hold a secret.
  if (doc.errors.length > 0) throw new Error(`${path}: YAML syntax error: ${doc.errors[0]!.message}`);
  const source = {
    name: "channels" as const,
    displayPath: path,
    doc,
    lineCounter: new LineCounter(),
    references: new Map<string, string>(),
  };
  let issues = doc.contents === null ? [] : resolveReferences(source, dirname(resolve(path)), env);
  const value: unknown = doc.toJS() ?? {};
  if (issues.length === 0) issues = validateSchema(coreConfigFile("channels"), value);
  if (issues.length === 0) issues = UNIQUE_CHANNELS_RULE.check({ channels: value } as unknown as ConfigData);
  const problems = issues.map(describe);
  if (problems.length > 0) throw new Error(`${path}: ${problems.join("; ")}`);
  const { channels, login_data } = value as ConfigData["channels"];
  // A service with no channels answers every user "none": most likely it was given the provider's file
  // after that was switched to directory.kind http (which must list none). Said at start, not at a login.
  if (channels.length === 0)
    throw new Error(
      `${path}: lists no channels (the service serves the channels of this file: give it its own list, not a provider's channels.yaml with directory.kind http)`,
    );
  // Without it channelinfo would have to believe any login_data (docs/custom-login.md §12).
  if (!login_data)
    throw new Error(
      `${path}: login_data.signing_key is required: the selector page seals the data it writes with it and channelinfo accepts only data sealed so (give it as \${env:NAME} or \${file:PATH})`,
    );
  return { channels, loginDataKey: login_data.signing_key };
}

/** `channels[0].icon: must match …`, like the provider's config messages (without line numbers). */
const describe = (issue: IssueDraft) => `${keyPath(issue.at) || "(file)"}: ${issue.message}`;
